// @ts-check
// The todos page's script: every call goes through gale/client, typed from the server's `typeof app` (checked by
// `npm run typecheck` with checkJs): a wrong path, param or body here fails to compile.
import { client } from '/gale-client.js';

/** @type {import('gale/client').Client<typeof import('../server.mjs').app>} */
const api = client(location.origin);
const list = /** @type {HTMLUListElement} */ (document.getElementById('todos'));
const status = /** @type {HTMLElement} */ (document.getElementById('status'));
const title = /** @type {HTMLInputElement} */ (document.getElementById('title'));

/** Lists the todos again; `note` (an error the last call answered) is shown after the count. */
async function refresh(note = '') {
  const res = await api.get('/api/todos');
  if (!res.ok) {
    status.textContent = `could not list: ${res.status}`;
    return;
  }
  list.replaceChildren(
    ...res.data.map((todo) => {
      const li = document.createElement('li');
      li.dataset.id = String(todo.id);
      li.className = todo.done ? 'done' : 'open';
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.checked = todo.done;
      box.addEventListener('change', () => toggle(todo.id, box.checked));
      const remove = document.createElement('button');
      remove.textContent = 'remove';
      remove.addEventListener('click', () => removeTodo(todo.id));
      li.append(box, ` ${todo.title} `, remove);
      return li;
    }),
  );
  status.textContent = `${res.data.length} todo(s)${note ? ` (${note})` : ''}`;
}

/** @param {number} id @param {boolean} done */
async function toggle(id, done) {
  const res = await api.patch('/api/todos/:id', { params: { id }, body: { done } });
  await refresh(res.status === 404 ? res.data.error : '');
}

/** @param {number} id */
async function removeTodo(id) {
  const res = await api.delete('/api/todos/:id', { params: { id } });
  await refresh(res.status === 404 ? res.data.error : '');
}

document.getElementById('add')?.addEventListener('submit', async (e) => {
  e.preventDefault();
  const res = await api.post('/api/todos', { body: { title: title.value } });
  if (res.status === 400) status.textContent = res.data.errors.map((i) => i.message).join('; ');
  else {
    title.value = '';
    await refresh();
  }
});

await refresh();
