// `/form`: a form action. Without JavaScript it is a plain POST and a full page; with it, use:enhance posts with
// fetch and updates the page in place. Messages live in memory.
import { fail } from '@sveltejs/kit';
import { addMessage, messages } from '../../lib/server/store.js';

export function load() {
  return { messages: messages() };
}

export const actions = {
  default: async ({ request }) => {
    const form = await request.formData();
    const text = String(form.get('text') ?? '').trim();
    if (text === '') return fail(400, { error: 'Write something first.' });
    if (text.length > 200) return fail(400, { error: 'At most 200 characters.', text });
    addMessage(text);
    return { added: text };
  },
};
