// The design tokens and shared component styles first, so that each panel's own CSS (imported by
// the panel) comes after them and wins at equal specificity.
import './styles.css';
import './ui/ui.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.tsx';
import { wireEvents } from './store/index.ts';

const container = document.getElementById('root');
if (container === null) throw new Error('index.html has no #root element');

wireEvents();
createRoot(container).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
