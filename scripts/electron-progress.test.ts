import { describe, expect, it } from 'vitest';
// @ts-expect-error -- plain JavaScript without declarations
import { progressReporter } from './electron-progress.js';

const MB = 1024 * 1024;

function sink(isTTY: boolean) {
  const writes: string[] = [];
  return { isTTY, writes, write: (s: string) => writes.push(s) };
}

describe('download progress', () => {
  it('repaints one line in place on a TTY, at most every 100 ms, and ends it when done', () => {
    const out = sink(true);
    let clock = 0;
    const progress = progressReporter(out, 'Electron 45.4.1', () => clock);
    progress.start('http://mirror/x.zip', 10 * MB);
    progress.update(1 * MB); // 0 ms after the first paint: not repainted
    clock = 150;
    progress.update(5 * MB);
    clock = 200;
    progress.update(6 * MB); // 50 ms later: not repainted
    clock = 400;
    progress.update(10 * MB);
    progress.done();
    expect(out.writes).toEqual([
      '\rDownloading Electron 45.4.1: 0.0 MB of 10.0 MB (0%)\x1b[K',
      '\rDownloading Electron 45.4.1: 5.0 MB of 10.0 MB (50%)\x1b[K',
      '\rDownloading Electron 45.4.1: 10.0 MB of 10.0 MB (100%)\x1b[K',
      '\rDownloading Electron 45.4.1: 10.0 MB of 10.0 MB (100%)\x1b[K',
      '\n',
    ]);
    expect(out.writes.join('').split('\n')).toHaveLength(2);
  });

  it('writes plain lines elsewhere: the source, then one line a quarter', () => {
    const out = sink(false);
    const progress = progressReporter(out, 'Electron 45.4.1');
    progress.start('http://mirror/x.zip', 4 * MB);
    for (let bytes = 0.5 * MB; bytes <= 4 * MB; bytes += 0.5 * MB) progress.update(bytes);
    progress.done();
    expect(out.writes).toEqual([
      'Downloading Electron 45.4.1 from http://mirror/x.zip (4.0 MB)\n',
      '  1.0 MB of 4.0 MB (25%)\n',
      '  2.0 MB of 4.0 MB (50%)\n',
      '  3.0 MB of 4.0 MB (75%)\n',
      '  4.0 MB of 4.0 MB (100%)\n',
    ]);
  });

  it('counts megabytes when the server gives no size', () => {
    const out = sink(false);
    const progress = progressReporter(out, 'Electron 45.4.1');
    progress.start('http://mirror/x.zip', null);
    progress.update(25 * MB);
    progress.done();
    expect(out.writes).toEqual(['Downloading Electron 45.4.1 from http://mirror/x.zip\n', '  25.0 MB\n', '  25.0 MB downloaded\n']);
  });

  it('ends the TTY line when the download is abandoned, so the error starts on its own line', () => {
    const out = sink(true);
    const progress = progressReporter(out, 'Electron 45.4.1', () => 0);
    progress.start('http://mirror/x.zip', MB);
    progress.abandon();
    expect(out.writes.at(-1)).toBe('\n');
  });
});
