/** Copies a text to the clipboard and says so for a moment. */
import { useEffect, useState } from 'react';
import { Button, IconButton } from './Button.tsx';

/**
 * An icon button named `label`; with a `caption` it is a ghost text button instead (for toolbars,
 * where an unlabelled icon among worded buttons reads as decoration).
 */
export function CopyButton({ text, label = 'Copy', caption }: { readonly text: string; readonly label?: string; readonly caption?: string }) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), 1200);
    return () => clearTimeout(timer);
  }, [copied]);
  const copy = () => {
    void navigator.clipboard?.writeText(text).then(
      () => setCopied(true),
      () => {},
    );
  };
  if (caption !== undefined) {
    return (
      <Button
        variant="ghost"
        icon={copied ? 'check' : 'copy'}
        title={label}
        aria-label={copied ? 'Copied' : label}
        className={copied ? 'copy-done' : undefined}
        onClick={copy}
      >
        {copied ? 'Copied' : caption}
      </Button>
    );
  }
  return <IconButton icon={copied ? 'check' : 'copy'} label={copied ? 'Copied' : label} className={copied ? 'copy-done' : undefined} onClick={copy} />;
}
