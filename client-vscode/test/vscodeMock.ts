// The parts of the `vscode` API the tested modules touch, with hooks the tests set.

export class Uri {
  constructor(
    readonly scheme: string,
    readonly fsPath: string,
  ) {}
  static file(p: string): Uri {
    return new Uri('file', p);
  }
}

export interface FakeExtension {
  isActive: boolean;
  exports: unknown;
  activate(): Promise<unknown>;
}

export const state: { extensions: Record<string, FakeExtension | undefined> } = { extensions: {} };

export const extensions = {
  getExtension(id: string): FakeExtension | undefined {
    return state.extensions[id];
  },
};

export class EventEmitter<T> {
  private listeners: ((e: T) => void)[] = [];
  event = (listener: (e: T) => void): { dispose(): void } => {
    this.listeners.push(listener);
    return { dispose: () => (this.listeners = this.listeners.filter((l) => l !== listener)) };
  };
  fire(e: T): void {
    for (const l of this.listeners) {
      l(e);
    }
  }
}
