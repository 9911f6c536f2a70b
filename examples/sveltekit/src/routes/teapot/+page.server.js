// `/teapot`: an expected error with its own status.
import { error } from '@sveltejs/kit';

export function load() {
  error(418, 'I am a teapot');
}
