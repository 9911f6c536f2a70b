// `/api/echo`: the request body streamed back as it arrives (a streamed request and a streamed response).
export function POST({ request }) {
  return new Response(request.body, {
    headers: { 'content-type': request.headers.get('content-type') ?? 'application/octet-stream' },
  });
}
