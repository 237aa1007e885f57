/**
 * What the inspector suite runs inside Chromium's page. `installProbe` is added with
 * `page.addInitScript`, so it runs before the page's own scripts on every navigation; Playwright
 * sends it as source text, so it is self-contained (no import, no closure over this module).
 * It puts `window.__bench` on the page:
 *
 * - `whenPainted(spec)`: resolves once the panel named by the spec shows its data AND a frame
 *   holding it has been painted: a MutationObserver notices the DOM change (in the microtask
 *   after React's commit), then a requestAnimationFrame posts a MessageChannel message, which
 *   runs after that frame's rendering (style, layout, paint) on the main thread.
 * - `armClick(spec)`: the next click anywhere (seen in the capture phase, before React) starts a
 *   clock at the click's `event.timeStamp`; `clicked` resolves with it once the spec's data is
 *   painted as above.
 * - `load`: when the init script is given a spec, the same wait from the navigation's start
 *   (`performance.now()` is 0 at the navigation start).
 * - `record(options)`: frame timestamps for `durationMs`, from a requestAnimationFrame loop, and
 *   for each frame the time from its begin (the rAF timestamp) to a MessageChannel message posted
 *   from the rAF, which runs after the frame's rendering: the main-thread time it took to get
 *   that frame painted. Also the main thread's long tasks (over 50 ms, the Long Tasks API) that
 *   started during the recording. Optionally scrolls an element from top to bottom at a steady
 *   rate.
 *
 * Times are `performance.now()` milliseconds of the page (100 µs resolution in Chromium).
 */

/** Where a panel's data is: the panel is `main[aria-labelledby="panel-tab-<panel>"]`. */
export interface ReadySpec {
  readonly panel: string;
  /**
   * Any one of these shows the data: an element matching `selector` inside the panel (the panel
   * itself without a selector) whose text includes `text` (any text without one).
   */
  readonly data: readonly { readonly selector?: string; readonly text?: string }[];
  readonly timeoutMs: number;
}

/**
 * `data`: the spec matched. `placeholder`: the panel is the shell's "not built yet" stub
 * (`.panel-placeholder`), painted. `timeout`: neither within the spec's time; `alert` then holds
 * the text of an error notice (`role="alert"`) in the panel, if one is shown.
 */
export type ReadyState = 'data' | 'placeholder' | 'timeout';

export interface PaintTiming {
  /** Page time the clock started: the click's timestamp, or 0 (the navigation's start). */
  readonly start: number;
  /** Page time the frame holding the data had been painted. */
  readonly painted: number;
  readonly state: ReadyState;
  readonly alert: string | undefined;
}

export interface RecordOptions {
  readonly durationMs: number;
  /**
   * Scroll the scroll container of the first element matching this selector (the element itself
   * or its nearest scrollable ancestor) from its top to its bottom in `durationMs`, by setting
   * scrollTop in each frame to where the steady rate puts it at that frame's time.
   */
  readonly scrollSelector?: string;
}

export interface FrameRecord {
  /** rAF timestamps: the begin time of each frame. */
  readonly frameStarts: number[];
  /** Per frame, ms from its begin to the message that runs after its rendering. */
  readonly work: number[];
  /** Elements in the document at the start, the most seen (sampled every 250 ms), at the end. */
  readonly elementsStart: number;
  readonly elementsMax: number;
  readonly elementsEnd: number;
  /** For a scroll: the scrollTop reached and the scroll range. */
  readonly scrolledTo: number;
  readonly scrollRange: number;
  /**
   * Durations (ms) of the main thread's long tasks (PerformanceObserver `longtask`: every task
   * over 50 ms) that started during the recording; null where the browser does not report them.
   */
  readonly longTasks: number[] | null;
  /**
   * The animation frames over 50 ms that ended during the recording (PerformanceObserver
   * `long-animation-frame`), each said in one line: its duration, where its time went (scripts
   * by invoker, then style and layout, then the rest of rendering). What a long task does not
   * say; empty where the browser does not report them.
   */
  readonly longFrames: string[];
}

export interface Probe {
  whenPainted(spec: ReadySpec): Promise<PaintTiming>;
  armClick(spec: ReadySpec): void;
  clicked: Promise<PaintTiming> | undefined;
  load: Promise<PaintTiming> | undefined;
  record(options: RecordOptions): Promise<FrameRecord>;
  /** Resolves after the next frame has been painted. */
  afterPaint(): Promise<number>;
  firstContentfulPaint(): number | undefined;
  elements(): number;
  /** Sets the scrollTop of the scroll container of the element matching `selector` (see RecordOptions); answers it, or -1 without one. */
  scrollTo(selector: string, top: number): number;
}

/** `window` as the probe leaves it. */
export type ProbeWindow = Window & { __bench: Probe };

/** The init script. Runs in the page: everything it uses is inside it. */
export function installProbe(load: ReadySpec | null): void {
  const w = window as unknown as { __bench?: Probe };
  if (w.__bench !== undefined) return;

  const afterPaint = (): Promise<number> =>
    new Promise((resolve) => {
      requestAnimationFrame(() => {
        const channel = new MessageChannel();
        channel.port1.onmessage = () => {
          channel.port1.close();
          resolve(performance.now());
        };
        channel.port2.postMessage(null);
      });
    });

  const panelOf = (spec: ReadySpec): Element | null => document.querySelector(`main[aria-labelledby="panel-tab-${spec.panel}"]`);

  const stateOf = (spec: ReadySpec): ReadyState | undefined => {
    const panel = panelOf(spec);
    if (panel === null) return undefined;
    if (panel.querySelector('.panel-placeholder') !== null) return 'placeholder';
    // The shared first-load indicator (ui/states.tsx `Loading`): the panel's data is not there yet.
    if (panel.querySelector('.state-loading') !== null) return undefined;
    for (const want of spec.data) {
      const candidates = want.selector === undefined ? [panel] : Array.from(panel.querySelectorAll(want.selector));
      for (const element of candidates) if (want.text === undefined || (element.textContent ?? '').includes(want.text)) return 'data';
    }
    return undefined;
  };

  const whenPainted = (spec: ReadySpec, start: () => number): Promise<PaintTiming> =>
    new Promise((resolve) => {
      let finished = false;
      const finish = (state: ReadyState): void => {
        if (finished) return;
        finished = true;
        observer.disconnect();
        clearTimeout(timer);
        if (state === 'timeout') {
          const alert = panelOf(spec)?.querySelector('[role="alert"]')?.textContent ?? undefined;
          resolve({ start: start(), painted: performance.now(), state, alert });
          return;
        }
        void afterPaint().then((painted) => resolve({ start: start(), painted, state, alert: undefined }));
      };
      const check = (): void => {
        const state = stateOf(spec);
        if (state !== undefined) finish(state);
      };
      const observer = new MutationObserver(check);
      const timer = setTimeout(() => finish('timeout'), spec.timeoutMs);
      observer.observe(document, { childList: true, subtree: true, attributes: true, characterData: true });
      check();
    });

  const elements = (): number => document.getElementsByTagName('*').length;

  const scrollerOf = (selector: string): Element | null => {
    let element: Element | null = document.querySelector(selector);
    while (element !== null && element.scrollHeight <= element.clientHeight + 1) element = element.parentElement;
    return element;
  };

  const probe: Probe = {
    whenPainted: (spec) => whenPainted(spec, () => 0),
    armClick(spec) {
      probe.clicked = new Promise((resolve) => {
        document.addEventListener(
          'click',
          (event) => {
            const at = event.timeStamp;
            void whenPainted(spec, () => at).then(resolve);
          },
          { capture: true, once: true },
        );
      });
    },
    clicked: undefined,
    load: undefined,
    record(options) {
      return new Promise((resolve) => {
        const frameStarts: number[] = [];
        const work: number[] = [];
        const channel = new MessageChannel();
        channel.port1.onmessage = (event: MessageEvent<number>) => {
          work.push(performance.now() - event.data);
        };
        const scroller = options.scrollSelector === undefined ? null : scrollerOf(options.scrollSelector);
        const scrollRange = scroller === null ? 0 : scroller.scrollHeight - scroller.clientHeight;
        const elementsStart = elements();
        let elementsMax = elementsStart;
        const sampler = setInterval(() => {
          elementsMax = Math.max(elementsMax, elements());
        }, 250);
        // Long tasks are reported when they end: one that ends during the recording counts.
        const recordStart = performance.now();
        let longTasks: number[] | null = null;
        let longTaskObserver: PerformanceObserver | undefined;
        if (PerformanceObserver.supportedEntryTypes.includes('longtask')) {
          longTasks = [];
          const seen = longTasks;
          longTaskObserver = new PerformanceObserver((list) => {
            for (const entry of list.getEntries()) if (entry.startTime + entry.duration >= recordStart) seen.push(entry.duration);
          });
          longTaskObserver.observe({ type: 'longtask' });
        }
        const longFrames: string[] = [];
        let frameObserver: PerformanceObserver | undefined;
        if (PerformanceObserver.supportedEntryTypes.includes('long-animation-frame')) {
          interface FrameScript {
            readonly invoker: string;
            readonly duration: number;
            readonly forcedStyleAndLayoutDuration: number;
          }
          interface LongFrame extends PerformanceEntry {
            readonly renderStart: number;
            readonly styleAndLayoutStart: number;
            readonly blockingDuration: number;
            readonly scripts: readonly FrameScript[];
          }
          const describe = (entry: LongFrame): string => {
            const end = entry.startTime + entry.duration;
            const scripts = entry.scripts.map(
              (x) =>
                `${x.invoker} ${x.duration.toFixed(0)}${x.forcedStyleAndLayoutDuration > 1 ? ` (forced layout ${x.forcedStyleAndLayoutDuration.toFixed(0)})` : ''}`,
            );
            const render = entry.renderStart > 0 ? entry.styleAndLayoutStart - entry.renderStart : 0;
            const layout = entry.styleAndLayoutStart > 0 ? end - entry.styleAndLayoutStart : 0;
            return `${entry.duration.toFixed(0)} ms: scripts [${scripts.join(', ')}], rAF and render ${render.toFixed(0)}, style+layout+paint ${layout.toFixed(0)}`;
          };
          frameObserver = new PerformanceObserver((list) => {
            for (const entry of list.getEntries()) if (entry.startTime + entry.duration >= recordStart) longFrames.push(describe(entry as LongFrame));
          });
          frameObserver.observe({ type: 'long-animation-frame' });
        }
        let first: number | undefined;
        const frame = (time: number): void => {
          first ??= time;
          frameStarts.push(time);
          channel.port2.postMessage(time);
          const elapsed = time - first;
          if (scroller !== null) scroller.scrollTop = Math.min(scrollRange, Math.round((scrollRange * elapsed) / options.durationMs));
          if (elapsed < options.durationMs) {
            requestAnimationFrame(frame);
            return;
          }
          // The last frame's message comes after its rendering; then stop.
          void afterPaint().then(() => {
            clearInterval(sampler);
            channel.port1.close();
            if (longTaskObserver !== undefined && longTasks !== null) {
              for (const entry of longTaskObserver.takeRecords()) if (entry.startTime + entry.duration >= recordStart) longTasks.push(entry.duration);
              longTaskObserver.disconnect();
            }
            frameObserver?.disconnect();
            const elementsEnd = elements();
            resolve({
              frameStarts,
              work,
              elementsStart,
              elementsMax: Math.max(elementsMax, elementsEnd),
              elementsEnd,
              scrolledTo: scroller?.scrollTop ?? 0,
              scrollRange,
              longTasks,
              longFrames,
            });
          });
        };
        requestAnimationFrame(frame);
      });
    },
    afterPaint,
    firstContentfulPaint: () => performance.getEntriesByName('first-contentful-paint')[0]?.startTime,
    elements,
    scrollTo(selector, top) {
      const scroller = scrollerOf(selector);
      if (scroller === null) return -1;
      scroller.scrollTop = top;
      return scroller.scrollTop;
    },
  };
  w.__bench = probe;
  if (load !== null) probe.load = whenPainted(load, () => 0);
}
