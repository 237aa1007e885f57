/**
 * An element's content size, kept up to date with a ResizeObserver; undefined until measured.
 * It takes a callback ref, not a ref object: the element may appear after the first render (a
 * panel that shows "Loading…" first), and then it is observed as soon as it is attached.
 */
import { useCallback, useEffect, useState } from 'react';
import type { Size } from './mesh-layout.ts';

export function useElementSize<T extends HTMLElement>(): [ref: (element: T | null) => void, size: Size | undefined] {
  const [element, setElement] = useState<T | null>(null);
  const [size, setSize] = useState<Size | undefined>(undefined);
  const ref = useCallback((next: T | null) => setElement(next), []);
  useEffect(() => {
    if (element === null) return;
    const observer = new ResizeObserver(([entry]) => {
      if (entry === undefined) return;
      const { width, height } = entry.contentRect;
      // Whole pixels: sub-pixel jitter must not re-lay the graph out.
      setSize((previous) =>
        previous !== undefined && Math.round(previous.width) === Math.round(width) && Math.round(previous.height) === Math.round(height)
          ? previous
          : { width: Math.round(width), height: Math.round(height) },
      );
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [element]);
  return [ref, size];
}
