import type { Readable } from 'node:stream';
import type { Context } from 'aws-lambda';
import { businessMetrics } from './metrics';
import { logger } from '../commons/logger';
import type { Lease } from '../stores/listings-in-flight';

/**
 * Time kept back from the Lambda deadline to end a listing ourselves: Lambda would cut it a moment
 * later anyway, and this way its bytes are recorded and its slot freed before the runtime stops.
 */
export const LISTING_DEADLINE_MARGIN_MS = 1_000;

const closed = (stream: Readable): Promise<void> =>
  stream.closed ? Promise.resolve() : new Promise((resolve) => stream.once('close', () => resolve()));

/**
 * One listing from its admission to its end, whichever way it ends: it counts the bytes the body
 * sends, and `end()` records them (ListingResponseBytes) and frees the listing's slot, once. It
 * ends at the latest just before the function deadline, cutting a body still being sent.
 */
export class ListingRun {
  private bytes = 0;
  private recorded = false;
  private body: Readable | undefined;
  private ended: Promise<void> | undefined;
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly deadline: Promise<void>;

  constructor(
    private readonly lease: Lease | undefined,
    context: Pick<Context, 'getRemainingTimeInMillis'> | undefined,
  ) {
    const remaining = context?.getRemainingTimeInMillis?.();
    let reached: () => void = () => undefined;
    this.deadline = new Promise((resolve) => (reached = resolve));
    if (remaining !== undefined) {
      this.timer = setTimeout(
        () => {
          logger.error('listing cut just before the function deadline');
          reached();
          void this.end();
        },
        Math.max(0, remaining - LISTING_DEADLINE_MARGIN_MS),
      );
    }
  }

  /**
   * The body's chunks, counted as they are handed to the response stream. A complete body is
   * recorded and its slot freed after its last chunk, before the response ends: a client that
   * starts its next listing as soon as one ends finds its slot free.
   */
  async *counted(chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
    for await (const chunk of chunks) {
      this.bytes += chunk.length;
      yield chunk;
    }
    this.record();
    await this.lease?.release();
  }

  private record(): void {
    if (this.recorded) return;
    this.recorded = true;
    businessMetrics.listingResponse(this.bytes);
  }

  /** The response body, ended with the run if it is still going then. */
  attach(body: Readable): void {
    this.body = body;
  }

  /**
   * Ends the run: stops the body if it still runs and waits until it has stopped reading (unless
   * the deadline is reached first), then records the bytes sent and frees the slot.
   */
  end(): Promise<void> {
    this.ended ??= (async () => {
      const body = this.body;
      if (body) {
        if (!body.destroyed) body.destroy();
        await Promise.race([closed(body), this.deadline]);
      }
      clearTimeout(this.timer);
      if (body) this.record();
      await this.lease?.release();
    })();
    return this.ended;
  }
}
