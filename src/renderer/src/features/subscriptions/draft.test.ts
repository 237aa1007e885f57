import { describe, expect, it } from 'vitest';
import { checkForm, EMPTY_FORM } from './draft.ts';

describe('the subscription form', () => {
  it('builds the statement and arguments it registers', () => {
    expect(
      checkForm({ ...EMPTY_FORM, collection: ' orders ', where: 'locationId = :loc', orderBy: 'createdAt DESC', limit: '50', args: '{"loc": "A"}' }),
    ).toEqual({
      ok: true,
      statement: { statement: 'SELECT * FROM orders WHERE locationId = :loc ORDER BY createdAt DESC LIMIT 50', args: { loc: 'A' } },
    });
  });

  it('subscribes to a whole collection when only its name is given', () => {
    expect(checkForm({ ...EMPTY_FORM, collection: 'order' })).toEqual({ ok: true, statement: { statement: 'SELECT * FROM `order`', args: {} } });
  });

  it('names the field that is wrong', () => {
    expect(checkForm(EMPTY_FORM)).toMatchObject({ ok: false, field: 'collection' });
    expect(checkForm({ ...EMPTY_FORM, collection: 'c', limit: '-1' })).toMatchObject({ ok: false, field: 'limit' });
    expect(checkForm({ ...EMPTY_FORM, collection: 'c', offset: '1.5' })).toMatchObject({ ok: false, field: 'offset' });
    expect(checkForm({ ...EMPTY_FORM, collection: 'c', args: '[1]' })).toMatchObject({ ok: false, field: 'args' });
    expect(checkForm({ ...EMPTY_FORM, collection: 'c', args: '{' })).toMatchObject({ ok: false, field: 'args' });
  });
});
