/** The registration form's text turned into the statement and arguments it registers, or what is wrong with it. Pure. */
import { subscriptionStatement, type Statement } from '../../../../shared/inspector/statements.ts';
import type { JsonObject } from '../../../../shared/json.ts';

export interface SubscriptionForm {
  readonly collection: string;
  readonly where: string;
  readonly orderBy: string;
  readonly limit: string;
  readonly offset: string;
  /** Named arguments, JSON text. */
  readonly args: string;
}

export const EMPTY_FORM: SubscriptionForm = { collection: '', where: '', orderBy: '', limit: '', offset: '', args: '' };

export type FormCheck =
  { readonly ok: true; readonly statement: Statement } | { readonly ok: false; readonly field: keyof SubscriptionForm; readonly problem: string };

function count(text: string): number | undefined | 'bad' {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  return /^\d+$/.test(trimmed) && Number.isSafeInteger(Number(trimmed)) ? Number(trimmed) : 'bad';
}

export function checkForm(form: SubscriptionForm): FormCheck {
  const collection = form.collection.trim();
  if (collection === '') return { ok: false, field: 'collection', problem: 'Name the collection to subscribe to.' };
  const limit = count(form.limit);
  if (limit === 'bad') return { ok: false, field: 'limit', problem: 'LIMIT takes a whole number, 0 or more.' };
  const offset = count(form.offset);
  if (offset === 'bad') return { ok: false, field: 'offset', problem: 'OFFSET takes a whole number, 0 or more.' };
  let args: JsonObject = {};
  if (form.args.trim() !== '') {
    let value: unknown;
    try {
      value = JSON.parse(form.args);
    } catch (error) {
      return { ok: false, field: 'args', problem: `The arguments are not JSON: ${(error as Error).message}` };
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return { ok: false, field: 'args', problem: 'The arguments are a JSON object: {"loc": "A"}.' };
    args = value as JsonObject;
  }
  let statement: string;
  try {
    statement = subscriptionStatement({
      collection,
      where: form.where,
      orderBy: form.orderBy,
      ...(limit === undefined ? {} : { limit }),
      ...(offset === undefined ? {} : { offset }),
    });
  } catch (error) {
    return { ok: false, field: 'collection', problem: (error as Error).message };
  }
  return { ok: true, statement: { statement, args } };
}
