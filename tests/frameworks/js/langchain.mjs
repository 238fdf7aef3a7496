// LangChain.js (@langchain/openai 1.x) against `council serve`, as its docs show.
//
//   node langchain.mjs BASE_URL MODEL default|functionCalling|jsonSchema invoke|stream
//
// Prints one JSON object: {"city": <the object withStructuredOutput returned>, "updates": <chunks seen>}.
// "default" passes no method: for a model name not starting gpt-3 / gpt-4- that is jsonSchema.
import { ChatOpenAI } from '@langchain/openai';
import { z } from 'zod';

const [baseURL, model, method, call] = process.argv.slice(2);

const City = z.object({
  name: z.string().min(1),
  population: z.number().int().min(1),
  tags: z.array(z.string()).min(1),
});

const chat = new ChatOpenAI({ model, configuration: { baseURL }, apiKey: 'unused', maxRetries: 0 });
const structured = chat.withStructuredOutput(City, method === 'default' ? undefined : { method });
const prompt = 'Name a large city and a few words about it.';

let city;
let updates = 1;
if (call === 'invoke') {
  city = await structured.invoke(prompt);
} else if (call === 'stream') {
  updates = 0;
  for await (const chunk of await structured.stream(prompt)) {
    updates += 1;
    city = chunk;
  }
} else {
  throw new Error(`unknown call: ${call}`);
}
console.log(JSON.stringify({ city, updates }));
