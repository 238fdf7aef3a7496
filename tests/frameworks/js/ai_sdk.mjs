// The Vercel AI SDK (ai 6, @ai-sdk/openai 3) against `council serve`, as its docs show.
//
//   node ai_sdk.mjs BASE_URL MODEL generateObject|streamObject|generateText|streamText [chat|responses]
//
// Prints one JSON object: {"city": <the object the SDK returned>, "updates": <partial objects seen>}.
// generateText and streamText take `output: Output.object({schema})`, which v6 documents in place of the
// deprecated generateObject and streamObject (both still shipped, and both driven here).
import { createOpenAI } from '@ai-sdk/openai';
import { generateObject, generateText, Output, streamObject, streamText } from 'ai';
import { z } from 'zod';

const [baseURL, modelId, call, api = 'chat'] = process.argv.slice(2);

const City = z.object({
  name: z.string().min(1),
  population: z.number().int().min(1),
  tags: z.array(z.string()).min(1),
});

const openai = createOpenAI({ baseURL, apiKey: 'unused' });
// .chat(): the Chat Completions API; the default `openai(id)`: the Responses API (/v1/responses).
const model = api === 'responses' ? openai(modelId) : openai.chat(modelId);
const prompt = 'Name a large city and a few words about it.';
// maxRetries: 0: a failure is reported, not retried.
const settings = { model, prompt, maxRetries: 0 };

let city;
let updates = 1;
if (call === 'generateObject') {
  ({ object: city } = await generateObject({ ...settings, schema: City }));
} else if (call === 'streamObject') {
  const result = streamObject({ ...settings, schema: City, onError: ({ error }) => { throw error; } });
  updates = 0;
  for await (const _partial of result.partialObjectStream) updates += 1;
  city = await result.object;
} else if (call === 'generateText') {
  ({ output: city } = await generateText({ ...settings, output: Output.object({ schema: City }) }));
} else if (call === 'streamText') {
  const result = streamText({ ...settings, output: Output.object({ schema: City }),
                              onError: ({ error }) => { throw error; } });
  updates = 0;
  for await (const _partial of result.partialOutputStream) updates += 1;
  city = await result.output;
} else {
  throw new Error(`unknown call: ${call}`);
}
console.log(JSON.stringify({ city, updates }));
