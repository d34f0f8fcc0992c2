// Types of messages.js (plain ES module served to the browser as is; imported by the tests).
export declare const CODE_SENTENCES: Record<string, string>;
export declare const FAIL_SENTENCES: Record<string, string>;
export declare const STATUS_LABELS: Record<string, string>;
export declare const TERMINAL: Set<string>;
export declare function parentStatus(status: string): string | null;
export declare function describeError(body: unknown, httpStatus?: number): string;
export declare function failSentence(reason: string | null | undefined): string;
