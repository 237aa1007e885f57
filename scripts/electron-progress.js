// Download progress on a terminal: one line updated in place (bytes and percent) when the stream
// is a TTY; otherwise plain lines, one per quarter (or per 10 MB when the size is unknown), so that
// a log file or CI output stays readable. Plain JavaScript.

const MB = 1024 * 1024;
/** The least time between two repaints of the TTY line. */
const REPAINT_MS = 100;

/** "12.3 MB" */
export function megabytes(bytes) {
  return `${(bytes / MB).toFixed(1)} MB`;
}

/**
 * @param {{ write(s: string): unknown, isTTY?: boolean }} out
 * @param {string} label what is downloaded, like "Electron 45.4.1"
 * @param {() => number} [now]
 */
export function progressReporter(out, label, now = () => Date.now()) {
  const tty = Boolean(out.isTTY);
  let total = null;
  let transferred = 0;
  let lastPaint = 0;
  let lastStep = 0;
  let open = false;

  const text = () => {
    if (total === null) return `Downloading ${label}: ${megabytes(transferred)}`;
    const percent = Math.floor((transferred / total) * 100);
    return `Downloading ${label}: ${megabytes(transferred)} of ${megabytes(total)} (${percent}%)`;
  };
  const paint = () => {
    out.write(`\r${text()}\x1b[K`);
    lastPaint = now();
  };

  return {
    /** A download begins: `size` bytes, or null when the server did not say. */
    start(url, size) {
      total = size;
      transferred = 0;
      lastStep = 0;
      open = true;
      if (tty) paint();
      else out.write(`Downloading ${label} from ${url}${size === null ? '' : ` (${megabytes(size)})`}\n`);
    },
    update(bytes) {
      transferred = bytes;
      if (tty) {
        if (now() - lastPaint >= REPAINT_MS) paint();
        return;
      }
      const step = total === null ? Math.floor(transferred / (10 * MB)) : Math.floor((transferred / total) * 4);
      if (step > lastStep) {
        lastStep = step;
        out.write(`  ${text().slice(`Downloading ${label}: `.length)}\n`);
      }
    },
    /** The download is complete. */
    done() {
      if (!open) return;
      open = false;
      if (tty) {
        paint();
        out.write('\n');
      } else if (lastStep < (total === null ? Infinity : 4)) {
        out.write(`  ${megabytes(transferred)} downloaded\n`);
      }
    },
    /** The download failed: end the TTY line so that the next message starts on its own. */
    abandon() {
      if (open && tty) out.write('\n');
      open = false;
    },
  };
}
