/**
 * Results of one scoring call, yielded in the order they finish: the scorer pushes each rollout's result
 * as its execution ends and the gRPC stream (or the offline scorer) consumes them with `for await`.
 */
/** A push-based async iterable: results are pushed as they complete and consumed with `for await`. */
export class AsyncQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private closed = false;
  private failure: { error: unknown } | null = null;
  private wake: (() => void) | null = null;

  /** Ends the iteration with `error` (after the items already pushed). */
  fail(error: unknown): void {
    this.failure ??= { error };
    this.close();
  }

  push(item: T): void {
    this.items.push(item);
    this.wake?.();
  }

  close(): void {
    this.closed = true;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      const item = this.items.shift();
      if (item !== undefined) {
        yield item;
        continue;
      }
      if (this.failure !== null) throw this.failure.error;
      if (this.closed) return;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      this.wake = null;
    }
  }
}
