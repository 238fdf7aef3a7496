// The Vercel AI SDK (ai 6, @ai-sdk/openai 3) as an agent and a chat use it, against `council serve`.
//
//   node ai_sdk_agent.mjs BASE_URL MODEL toolLoop|turns generate|stream [chat|responses]
//
// toolLoop: a weather tool, the first step forced to call it and the next told to answer; prints
//   {"steps": [finish reasons], "cities": [the calls' arguments], "text": the answer}.
// turns: a question, then a follow-up with the first turn's messages as the SDK returned them (on the
//   Responses API with store on, the SDK sends earlier output back as item_reference items); prints
//   {"first": text, "second": text, "references": item_reference items the SDK sent}.
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import { z } from 'zod';

const [baseURL, modelId, scenario, mode, api = 'responses'] = process.argv.slice(2);

let references = 0;
const openai = createOpenAI({
  baseURL, apiKey: 'unused',
  fetch: async (url, init) => {
    const sent = typeof init?.body === 'string' ? JSON.parse(init.body) : {};
    references += (Array.isArray(sent.input) ? sent.input : []).filter((i) => i.type === 'item_reference').length;
    return fetch(url, init);
  },
});
// The default `openai(id)` speaks the Responses API; .chat() Chat Completions.
const model = api === 'responses' ? openai(modelId) : openai.chat(modelId);

async function ask(settings) {
  // maxRetries: 0: a failure is reported, not retried; a streamed error is thrown, not swallowed.
  if (mode === 'generate') return generateText({ model, maxRetries: 0, ...settings });
  let failure;
  const result = streamText({ model, maxRetries: 0, ...settings, onError: ({ error }) => { failure = error; } });
  await result.consumeStream();
  if (failure) throw failure;
  return { text: await result.text, steps: await result.steps, response: await result.response };
}

if (scenario === 'toolLoop') {
  const weather = tool({
    description: 'The weather in a city now',
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => ({ city, forecast: 'sunny, 20 degrees' }),
  });
  const result = await ask({
    tools: { weather }, toolChoice: 'required', prompt: 'What is the weather in Paris now?',
    stopWhen: stepCountIs(3), prepareStep: ({ stepNumber }) => (stepNumber > 0 ? { toolChoice: 'none' } : {}),
  });
  console.log(JSON.stringify({
    steps: result.steps.map((step) => step.finishReason),
    cities: result.steps.flatMap((step) => step.toolCalls.map((call) => call.input.city)),
    text: result.text,
  }));
} else if (scenario === 'turns') {
  const question = { role: 'user', content: 'Why is the sky blue?' };
  const first = await ask({ messages: [question] });
  const second = await ask({
    messages: [question, ...first.response.messages, { role: 'user', content: 'And why are sunsets red?' }],
  });
  console.log(JSON.stringify({ first: first.text, second: second.text, references }));
} else {
  throw new Error(`unknown scenario: ${scenario}`);
}
