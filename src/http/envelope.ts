import type { FastifyReply } from 'fastify';

export interface Envelope<T> {
  success: boolean;
  message: string;
  data?: T;
}

export function ok<T>(data: T, message: string): Envelope<T> {
  return { success: true, message, data };
}

export function send<T>(reply: FastifyReply, status: number, data: T, message: string): FastifyReply {
  return reply.code(status).send(ok(data, message));
}
