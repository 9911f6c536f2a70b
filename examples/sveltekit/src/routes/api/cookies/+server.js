// `/api/cookies`: several cookies from an endpoint (cookies.set), and one it reads back.
import { json } from '@sveltejs/kit';

export function GET({ cookies }) {
  cookies.set('a', '1', { path: '/', secure: false });
  cookies.set('b', 'two words', { path: '/api', httpOnly: true, secure: false });
  return json({ seen: cookies.get('seen') ?? null });
}
