import { describe, expect, it } from 'vitest';
import { goToStatement } from './go-to.ts';

describe('goToStatement', () => {
  it('finds a bare text as a string id, trimmed', () => {
    expect(goToStatement('orders', '  register-1-7 ')).toEqual({ statement: 'SELECT * FROM orders WHERE _id = :id', args: { id: 'register-1-7' } });
  });

  it('takes a quoted text for the string it quotes', () => {
    expect(goToStatement('orders', '"42"')).toEqual({ statement: 'SELECT * FROM orders WHERE _id = :id', args: { id: '42' } });
  });

  it('asks for both the JSON value and the text when the text reads as another JSON value', () => {
    expect(goToStatement('orders', '1001')).toEqual({ statement: 'SELECT * FROM orders WHERE _id = :id OR _id = :text', args: { id: 1001, text: '1001' } });
    expect(goToStatement('orders', '{"store": 1}')).toEqual({
      statement: 'SELECT * FROM orders WHERE _id = :id OR _id = :text',
      args: { id: { store: 1 }, text: '{"store": 1}' },
    });
  });

  it('writes a collection whose name is a keyword in backticks', () => {
    expect(goToStatement('select', 'a').statement).toBe('SELECT * FROM `select` WHERE _id = :id');
  });
});
