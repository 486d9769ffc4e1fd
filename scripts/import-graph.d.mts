// Types of import-graph.mjs (for test/layers.test.ts).
export function isTestFile(path: string): boolean;
export function importGraph(options?: { includeTests?: boolean }): Map<string, string[]>;
export function folderOf(path: string): string;
export function cycles(graph: Map<string, string[]>): string[][];
