// Feature scenarios for bench/run.ts (catalogue, purchases…). Each returns a list of scenarios.
import type { AppContext } from '../src/context.js';
import type { Scenario } from './run.js';

export interface BenchEnv {
  url: string;
  apiKey: string;
  merchantId: number;
  ctx: AppContext;
}

export async function scenarios(_env: BenchEnv): Promise<Scenario[]> {
  return [];
}
