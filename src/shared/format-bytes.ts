/**
 * Sizes for people: `1536` → `1.5 KB`, binary multiples. The inspector writes one decimal below
 * 10 units (`50 MB`); the CLI's aligned columns always one (`50.0 MB`). Negative or not finite: `—`.
 */
export function formatBytes(bytes: number, decimals: 'below-ten' | 'always' = 'below-ten'): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—';
  if (bytes < 1024) return `${Math.round(bytes)} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${decimals === 'always' || value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}
