// `/redirect`: a redirect thrown from a load.
import { redirect } from '@sveltejs/kit';

export function load() {
  redirect(303, '/?from=redirect');
}
