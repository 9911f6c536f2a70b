// `/cookies`: counts visits in a cookie and sets two more, so every answer carries several Set-Cookie headers.
export function load({ cookies }) {
  const visits = Number(cookies.get('visits') ?? 0) + 1;
  cookies.set('visits', String(visits), { path: '/', httpOnly: false, sameSite: 'lax', secure: false });
  cookies.set('theme', 'dark', { path: '/', maxAge: 3600, secure: false });
  cookies.set('session', `s${visits}`, { path: '/', httpOnly: true, secure: false });
  return { visits };
}

export const actions = {
  reset: ({ cookies }) => {
    cookies.delete('visits', { path: '/', secure: false });
    return { reset: true };
  },
};
