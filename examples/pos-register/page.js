// The register's page: the catalog to sell from (registers only), the latest orders of the store,
// and for the back office the sales per register. It asks for /state.json every second.

const escape = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function pageHtml({ name, role, catalog }) {
  const buttons = catalog
    .map((p) => `<button type="submit" name="sku" value="${escape(p.sku)}">${escape(p.name)} · ${p.price.toFixed(2)}</button>`)
    .join('\n      ');
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <link rel="icon" href="data:,">
  <title>${escape(name)}</title>
  <style>
    body { font: 15px system-ui, sans-serif; margin: 2rem; color: #222; }
    button { font: inherit; padding: .6rem 1rem; margin: 0 .4rem .4rem 0; }
    table { border-collapse: collapse; margin-top: 1rem; }
    th, td { text-align: left; padding: .3rem .8rem; border-bottom: 1px solid #ddd; }
    .sync { color: #666; }
  </style>
</head>
<body>
  <h1>${escape(name)}</h1>
  <p class="sync" id="sync">…</p>
  ${
    role === 'register'
      ? `<form method="post" action="sell" aria-label="Sell">
      <label>Quantity <input name="qty" type="number" min="1" max="99" value="1"></label>
      ${buttons}
    </form>
    <p role="status" id="last"></p>`
      : '<table aria-label="Sales per register"><thead><tr><th>Register</th><th>Orders</th><th>Total</th></tr></thead><tbody id="sales"></tbody></table>'
  }
  <table aria-label="Orders">
    <thead><tr><th>Order</th><th>Register</th><th>Total</th><th>Time</th></tr></thead>
    <tbody id="orders"></tbody>
  </table>
  <script type="module">
    const cell = (text) => { const td = document.createElement('td'); td.textContent = text; return td; };
    const row = (...cells) => { const tr = document.createElement('tr'); tr.append(...cells.map(cell)); return tr; };
    async function refresh() {
      const state = await (await fetch('state.json')).json();
      document.getElementById('sync').textContent = state.sync;
      document.getElementById('orders').replaceChildren(...state.orders.map((o) => row(o._id, o.register, o.total.toFixed(2), o.createdAt.slice(11, 19))));
      const sales = document.getElementById('sales');
      if (sales) sales.replaceChildren(...state.sales.map((s) => row(s.register, s.orders, s.total.toFixed(2))));
      const last = document.getElementById('last');
      if (last && state.lastSold) last.textContent = 'Sold ' + state.lastSold._id + ': ' + state.lastSold.total.toFixed(2);
    }
    refresh();
    setInterval(refresh, 1000);
  </script>
</body>
</html>
`;
}
