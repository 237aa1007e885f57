/** Small React hooks shared by panels. */
import { useEffect, useState } from 'react';

/** The viewer's clock, re-read every `intervalMs` (a re-render each tick); pass `false` to stop. */
export function useTicker(intervalMs: number | false): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (intervalMs === false) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}
