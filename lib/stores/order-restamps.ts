// The sync watch's one write: a change a walk could have missed gets a new stamp, so every later walk
// delivers the order (docs/design.md#the-change-stream). It is a stamped write like any other
// (lib/stores/stamped-write.ts, the rules of lib/core/sync/stamps.ts): strictly later than the stamp
// it replaces, the v2 index keys moved with it, each attempt cut at the per-attempt timeout and
// within the watch's own deadline, and only while the order is still as the stream showed it, so a
// later change (which has a stream record of its own) is never overwritten, and a batch delivered
// twice re-stamps once.
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Deadline } from '../commons/deadline';
import type { OrderStatus } from '../contract/order';
import { syncAttributes } from '../core/sync/keys';
import type { StampClock } from './aws-clock';
import type { AttemptTimer } from './call-deadlines';
import { conditionalWrite } from './conditional';
import { stampedWrite } from './stamped-write';

/** An order as a stream record showed it after a change: the stamp to replace, and the status it had. */
export interface SeenChange {
  id: string;
  status: OrderStatus;
  updatedAt: string;
}

export class OrderRestamps {
  constructor(
    /** One attempt per call, like every stamped write (the composition root's counter client). */
    private readonly writer: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly stamps: StampClock,
    /** Each attempt's own timeout, counted from before its stamp, and its timers: the composition root's. */
    private readonly attemptTimer?: AttemptTimer,
  ) {}

  /**
   * Stamps the order anew (now, or one millisecond after the stamp it had if that is later) if it
   * still has the status and updatedAt it was seen with, or one of this write's own earlier
   * attempts. The new stamp, or undefined when the order changed since or is gone. With the watch's
   * `deadline` (its invocation's, lib/edge/sync-watch-handler.ts), no attempt is sent after the
   * watch has given up on its batch.
   */
  restamp(seen: SeenChange, deadline?: Deadline): Promise<string | undefined> {
    return stampedWrite(
      this.stamps,
      ({ stamp, earlier, send }) => {
        const attributes = Object.entries(syncAttributes(seen.id, seen.status, stamp));
        const stamps = [seen.updatedAt, ...earlier].map((_, i) => `:seen${i}`);
        return conditionalWrite(() =>
          this.writer.send(
            new UpdateCommand({
              TableName: this.table,
              Key: { id: BigInt(seen.id) },
              UpdateExpression: `SET ${attributes.map(([name]) => `#${name} = :${name}`).join(', ')}`,
              ConditionExpression: `#status = :status AND #updatedAt IN (${stamps.join(', ')})`,
              ExpressionAttributeNames: {
                ...Object.fromEntries(attributes.map(([name]) => [`#${name}`, name])),
                '#status': 'status',
              },
              ExpressionAttributeValues: {
                ...Object.fromEntries(attributes.map(([name, value]) => [`:${name}`, value])),
                ...Object.fromEntries([seen.updatedAt, ...earlier].map((value, i) => [`:seen${i}`, value])),
                ':status': seen.status,
              },
            }),
            send,
          ),
        ).then((result) => (result.applied ? stamp : undefined));
      },
      { after: () => seen.updatedAt, timer: this.attemptTimer, ...(deadline ? { deadline } : {}) },
    );
  }
}
