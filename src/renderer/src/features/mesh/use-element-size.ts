/** An element's content size, kept up to date with a ResizeObserver; undefined until measured. */
import { useEffect, useState, type RefObject } from 'react';
import type { Size } from './mesh-layout.ts';

export function useElementSize(ref: RefObject<HTMLElement | null>): Size | undefined {
  const [size, setSize] = useState<Size | undefined>(undefined);
  useEffect(() => {
    const element = ref.current;
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
  }, [ref]);
  return size;
}
