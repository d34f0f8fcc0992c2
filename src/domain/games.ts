export const GAMES = ['csgo', 'rust', 'dota2', 'tf2'] as const;
export type Game = (typeof GAMES)[number];

export function isGame(value: unknown): value is Game {
  return typeof value === 'string' && (GAMES as readonly string[]).includes(value);
}
