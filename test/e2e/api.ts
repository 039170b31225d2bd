import type { APIRequestContext } from '@playwright/test';

// What the specs use to call the real server's API beside the browser.

/** The server globalSetup started. */
export const baseURL = () => process.env.WARDEN_E2E_URL!;
export const json = { accept: 'application/json' };
/** Headers of a state-changing call: JSON, from the console's own origin (a spec's own server's, when it has one). */
export const change = (url = baseURL()) => ({ ...json, 'content-type': 'application/json', origin: url });

export async function statusOf(request: APIRequestContext, id: string, url = baseURL()): Promise<string> {
  return (await (await request.get(`${url}/instances/${id}`, { headers: json })).json()).status;
}
