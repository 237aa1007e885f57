import { describe, expect, it } from 'vitest';
import { DQL_FUNCTION_NAMES } from '../../shared/dql/keywords.ts';
import { AGGREGATE_FUNCTIONS, SCALAR_FUNCTIONS } from './functions.ts';

describe("the dialect's functions", () => {
  it('are exactly the names the console knows, scalar then aggregate', () => {
    expect([...Object.keys(SCALAR_FUNCTIONS), ...AGGREGATE_FUNCTIONS]).toEqual(DQL_FUNCTION_NAMES);
  });
});
