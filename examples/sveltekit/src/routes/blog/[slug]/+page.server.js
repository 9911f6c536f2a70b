// `/blog/<slug>`: rendered per request.
import { error } from '@sveltejs/kit';

const posts = { hello: 'Hello, world', gale: 'On Gale' };

export function load({ params }) {
  const title = posts[params.slug];
  if (title === undefined) error(404, `No post called ${params.slug}`);
  return { slug: params.slug, title };
}
