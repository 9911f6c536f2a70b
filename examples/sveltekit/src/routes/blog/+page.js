// `/blog` is prerendered while the posts below it are rendered per request: the adapter must not let the
// prerendered file's mount swallow /blog/<slug>.
export const prerender = true;
