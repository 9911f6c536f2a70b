// `/api/stream`: a response body written over time (five lines, 50 ms apart).
export function GET() {
  let i = 0;
  let timer;
  const body = new ReadableStream({
    start(controller) {
      timer = setInterval(() => {
        controller.enqueue(new TextEncoder().encode(`line ${++i}\n`));
        if (i === 5) {
          clearInterval(timer);
          controller.close();
        }
      }, 50);
    },
    cancel() {
      clearInterval(timer);
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/plain; charset=utf-8' } });
}
