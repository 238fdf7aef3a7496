// Talking to the server: JSON calls with the API key when one is needed, and run event streams.
//
// With no keys configured the server answers without one and the page never asks.
// When it answers 401, the page asks once, keeps the key in this browser's
// localStorage, sends it as a Bearer header, and passes it as ?token= to
// EventSource, which cannot send headers.

const KEY_NAME = "council.apiKey";

/** An error answered by the server, with its status and message. */
export class ApiError extends Error {
  constructor(status, message, code) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

let keyPrompt = null;

/** Set the function that asks for a key: `async (message) => key or null`. */
export function onKeyNeeded(prompt) {
  keyPrompt = prompt;
}

/** The stored API key, if any. */
export function storedKey() {
  return localStorage.getItem(KEY_NAME);
}

/** Keep `key` in this browser and send it from now on. */
export function saveKey(key) {
  localStorage.setItem(KEY_NAME, key);
}

/** Forget the stored API key. */
export function forgetKey() {
  localStorage.removeItem(KEY_NAME);
}

/** Call the API; asks for a key on 401 and tries again with it. `body`, when given, must be an object. */
export async function api(method, path, body) {
  // A JSON null would reach the server as a body that is not an object: a mistake here, said here.
  if (body === null) throw new Error(`${method} ${path}: no body to send`);
  let message = "This server needs an API key. It is kept in this browser only.";
  for (;;) {
    const headers = { Accept: "application/json" };
    const key = storedKey();
    if (key) headers.Authorization = `Bearer ${key}`;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    if (response.status === 401 && keyPrompt) {
      const entered = await keyPrompt(key ? "That key was not accepted. Enter a valid API key." : message);
      if (!entered) throw new ApiError(401, "This server needs an API key.", "api_key_needed");
      saveKey(entered);
      message = "";
      continue;
    }
    if (response.status === 204) return null;
    const data = await response.json().catch(() => null);
    // An answer that started before it was ready (a long wait) carries its error in a 200's body.
    if (!response.ok || data?.error) {
      throw new ApiError(response.status, data?.error?.message || `${response.status} ${response.statusText}`,
        data?.error?.code);
    }
    return data;
  }
}

/**
 * Follow a run's events over SSE. `onEvent` gets each event; `onEnd` is called once when the run's
 * stream ends or cannot go on. Returns a function that stops following.
 */
export function followRun(runId, onEvent, onEnd) {
  const key = storedKey();
  const url = `/api/runs/${encodeURIComponent(runId)}/events${key ? `?token=${encodeURIComponent(key)}` : ""}`;
  const source = new EventSource(url);
  let done = false;
  const finish = (reason) => {
    if (done) return;
    done = true;
    source.close();
    onEnd(reason);
  };
  source.onmessage = (message) => onEvent(JSON.parse(message.data));
  source.addEventListener("end", () => finish("end"));
  // A dropped connection is retried by the browser (with Last-Event-ID); a refused one closes for good.
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED) finish("closed");
  };
  return () => finish("stopped");
}
