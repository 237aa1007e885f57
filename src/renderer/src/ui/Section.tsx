/** A titled block of a panel, with actions on the right of its title. */
import { useId, type ReactNode } from 'react';

export interface SectionProps {
  readonly title: ReactNode;
  readonly description?: ReactNode;
  readonly actions?: ReactNode;
  readonly children: ReactNode;
  readonly className?: string;
  /** Drawn as a card (a bordered box) instead of a plain block. */
  readonly card?: boolean;
  readonly headingLevel?: 2 | 3;
}

export function Section({ title, description, actions, children, className, card = false, headingLevel = 2 }: SectionProps) {
  const id = useId();
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  return (
    <section className={`section${card ? ' card' : ''}${className === undefined ? '' : ` ${className}`}`} aria-labelledby={id}>
      <header className="section-header">
        <div className="section-heading">
          <Heading id={id} className="section-title">
            {title}
          </Heading>
          {description !== undefined && <p className="section-description">{description}</p>}
        </div>
        {actions !== undefined && <div className="section-actions">{actions}</div>}
      </header>
      <div className="section-body">{children}</div>
    </section>
  );
}

/** Label–value pairs as a definition list, two columns. */
export function KeyValueList({ items, className }: { readonly items: readonly (readonly [ReactNode, ReactNode])[]; readonly className?: string }) {
  return (
    <dl className={`kv${className === undefined ? '' : ` ${className}`}`}>
      {items.map(([label, value], i) => (
        <div className="kv-row" key={i}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
