// In-memory state of the example's form page (one process; it resets on restart).
const list = [];

/** The messages, oldest first. */
export function messages() {
  return [...list];
}

/** Adds a message (the 50 newest are kept). */
export function addMessage(text) {
  list.push(text);
  if (list.length > 50) list.shift();
}
