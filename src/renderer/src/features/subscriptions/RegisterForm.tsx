/**
 * Registers a sync subscription as the app would (`sync.store.registerSubscription`): a
 * collection and the optional parts of its query, with the statement and the SDK call shown
 * live before it runs.
 */
import { registerSubscriptionCall } from '../../../../shared/inspector/statements.ts';
import { useInspector } from '../../store/index.ts';
import { Button } from '../../ui/Button.tsx';
import { StatementView } from '../../ui/StatementView.tsx';
import { ErrorNotice } from '../../ui/states.tsx';
import { checkForm, type SubscriptionForm } from './draft.ts';

export function RegisterForm() {
  const form = useInspector((s) => s.subscriptionsView.form);
  const setForm = useInspector((s) => s.setSubscriptionForm);
  const setOpen = useInspector((s) => s.setSubscriptionFormOpen);
  const register = useInspector((s) => s.registerSubscription);
  const call = useInspector((s) => s.subscriptions.register);
  const collections = useInspector((s) => s.overview.snapshot.value?.collections);
  const check = checkForm(form);
  const invalid = (field: keyof SubscriptionForm) => (!check.ok && check.field === field && form[field].trim() !== '' ? true : undefined);
  const field = (name: keyof SubscriptionForm, label: string, placeholder: string, className = '') => (
    <label className={`field ${className}`}>
      <span className="field-label">{label}</span>
      <input
        className="input mono"
        value={form[name]}
        placeholder={placeholder}
        aria-invalid={invalid(name)}
        list={name === 'collection' ? 'subscription-collections' : undefined}
        onChange={(event) => setForm({ [name]: event.target.value })}
      />
    </label>
  );
  return (
    <form
      className="register-form"
      aria-label="Register a subscription"
      onSubmit={(event) => {
        event.preventDefault();
        if (check.ok) void register(check.statement);
      }}
    >
      <div className="register-fields">
        {field('collection', 'Collection', 'orders', 'field-collection')}
        {field('where', 'WHERE', 'locationId = :loc AND isDeleted = false', 'field-where')}
        {field('orderBy', 'ORDER BY', 'createdAt DESC', 'field-order')}
        {field('limit', 'LIMIT', '—', 'field-small')}
        {field('offset', 'OFFSET', '—', 'field-small')}
        {field('args', 'Arguments (JSON)', '{"loc": "A"}', 'field-args')}
        <datalist id="subscription-collections">
          {(collections ?? [])
            .filter((c) => !c.internal)
            .map((c) => (
              <option key={c.name} value={c.name} />
            ))}
        </datalist>
      </div>
      {!check.ok && form.collection.trim() !== '' && <p className="form-problem">{check.problem}</p>}
      {check.ok && (
        <div className="register-preview">
          <StatementView label="Registers" statement={check.statement.statement} args={check.statement.args} />
          <p className="sdk-call">
            <span className="faint">SDK:</span> <code>{registerSubscriptionCall(check.statement.statement, check.statement.args)}</code>
          </p>
        </div>
      )}
      {call.status === 'error' && call.error !== undefined && <ErrorNotice compact title="The peer refused the subscription" error={call.error} />}
      <div className="register-actions">
        <Button onClick={() => setOpen(false)}>Cancel</Button>
        <Button type="submit" variant="primary" icon="plus" disabled={!check.ok} busy={call.status === 'loading'}>
          Register
        </Button>
      </div>
    </form>
  );
}
