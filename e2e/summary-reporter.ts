/**
 * A Playwright reporter that ends the browser tests with one plain line,
 * `Browser tests: N passed, N failed, N skipped`, like the unit tests' last line, and says how to
 * look at a failure (the screenshots Playwright keeps).
 */
import type { FullResult, Reporter, TestCase, TestResult } from '@playwright/test/reporter';

export default class SummaryReporter implements Reporter {
  #passed = 0;
  #failed = 0;
  #skipped = 0;

  onTestEnd(test: TestCase, result: TestResult): void {
    // Only the last attempt counts (retries are off, but be exact).
    if (result.retry < test.retries && result.status !== 'passed' && result.status !== 'skipped') return;
    if (result.status === 'passed') this.#passed++;
    else if (result.status === 'skipped') this.#skipped++;
    else this.#failed++;
  }

  onEnd(result: FullResult): void {
    const failedRun = result.status !== 'passed' && this.#failed === 0 ? ' (the run itself failed: see above)' : '';
    process.stdout.write(`\nBrowser tests: ${this.#passed} passed, ${this.#failed} failed, ${this.#skipped} skipped${failedRun}\n`);
    if (this.#failed > 0) process.stdout.write('Screenshots of the failed pages are in .tmp/e2e-results/.\n');
  }
}
