import type { FastifyReply } from 'fastify';

export interface Envelope<T> {
  success: boolean;
  message: string;
  data?: T;
}

/** A success always carries its data (the route's response schema requires it). */
export function ok<T>(data: T, message: string): Envelope<T> & { data: T } {
  return { success: true, message, data };
}

export function send<T>(reply: FastifyReply, status: number, data: T, message: string): FastifyReply {
  return reply.code(status).send(ok(data, message));
}
