/**
 * The little of the WebAssembly JavaScript API the byte kernels use: this project's lib has no
 * "dom", where the full declarations live, and @types/node 20 does not declare them.
 */
declare namespace WebAssembly {
  class Module {
    constructor(bytes: Uint8Array);
  }
  class Memory {
    constructor(descriptor: { initial: number; maximum?: number });
    readonly buffer: ArrayBuffer;
  }
  class Instance {
    constructor(module: Module, imports: object);
    readonly exports: Record<string, unknown>;
  }
}
