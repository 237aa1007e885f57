/** Arrow keys, Home and End move a table's selection through its rows, in the order shown. */
import type { KeyboardEvent } from 'react';

export function useRowKeys<T>(rows: readonly T[], isSelected: (row: T) => boolean, select: (row: T) => void): (event: KeyboardEvent<HTMLElement>) => void {
  return (event) => {
    if (rows.length === 0) return;
    const at = rows.findIndex(isSelected);
    let next: number;
    if (event.key === 'ArrowDown') next = Math.min(rows.length - 1, at + 1);
    else if (event.key === 'ArrowUp') next = at === -1 ? 0 : Math.max(0, at - 1);
    else if (event.key === 'Home') next = 0;
    else if (event.key === 'End') next = rows.length - 1;
    else return;
    event.preventDefault();
    select(rows[next] as T);
  };
}
