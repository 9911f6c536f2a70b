// `/api/redirect`: a redirect from an endpoint.
import { redirect } from '@sveltejs/kit';

export function GET() {
  redirect(307, '/api/items');
}
