import { Agent } from 'node:http';

/**
 * `clients` concurrent clients, each with its own kept-alive connection, send `total` requests
 * between them: request i is `send(i, agent)`, taken by whichever client is free. Results come
 * back in request order.
 */
export async function runClients<T>(
  clients: number,
  total: number,
  send: (i: number, agent: Agent) => Promise<T>,
): Promise<T[]> {
  const results = new Array<T>(total);
  let next = 0;
  const client = async (): Promise<void> => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (let i = next++; i < total; i = next++) results[i] = await send(i, agent);
    } finally {
      agent.destroy();
    }
  };
  await Promise.all(Array.from({ length: clients }, client));
  return results;
}

/** mulberry32: a small seeded generator, so a load run's mix is the same on every machine. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
