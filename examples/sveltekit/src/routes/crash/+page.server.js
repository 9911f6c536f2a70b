// `/crash`: an unexpected error: 500, and the message stays on the server.
export function load() {
  throw new Error('boom (this text must not reach the client)');
}
