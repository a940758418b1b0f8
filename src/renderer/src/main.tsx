/** Renderer entry: picks the transport (Electron preload or web shell HTTP) and mounts the UI. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App, NoAccess } from './app.js';
import { createTransportClient } from './api/transport.js';
import './styles/app.css';

const api = createTransportClient();
const root = createRoot(document.getElementById('root')!);
root.render(<StrictMode>{api ? <App api={api} /> : <NoAccess />}</StrictMode>);
