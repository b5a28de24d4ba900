import { WebSocket } from 'ws';

// Colyseus 0.18 targets Node 22, where WebSocket is a global; its reconnection code reads
// `WebSocket.OPEN` and crashes on Node 20 without this.
(globalThis as { WebSocket?: unknown }).WebSocket ??= WebSocket;
