// Starts the app: `npm run dev` (restarts on change), or `npm run build && npm start`. PORT and HOST choose where.
import { createApp } from './app.js';

const app = createApp();

// Registered before listening, so a signal can never arrive between the two: in-flight requests finish, idle
// connections close, the rest are cut after 5 s.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    await app.close({ timeout: 5000 });
    process.exit(0);
  });
}

const { port } = await app.listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? '0.0.0.0');
console.log(`Listening on http://localhost:${port}/`);
