import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.tsx';
import { wireEvents } from './store/index.ts';
import './styles.css';
import './ui/ui.css';

const container = document.getElementById('root');
if (container === null) throw new Error('index.html has no #root element');

wireEvents();
createRoot(container).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
