// Domain errors of the orders module, each with the code it is answered with; the HTTP edge maps
// the code to a status.
import { CodedError } from '../../contract/errors';

export class InvalidOrderIdError extends CodedError {
  override readonly name = 'InvalidOrderIdError';
  constructor() {
    super('INVALID_ORDER_ID', 'orderId must be a decimal integer in the int64 range');
  }
}

export class OrderNotFoundError extends CodedError {
  override readonly name = 'OrderNotFoundError';
  constructor(readonly orderId: string) {
    super('ORDER_NOT_FOUND', `Order ${orderId} not found`);
  }
}

export class OrderAlreadyShippedError extends CodedError {
  override readonly name = 'OrderAlreadyShippedError';
  constructor(readonly orderId: string) {
    super('ORDER_ALREADY_SHIPPED', `Order ${orderId} has already shipped`);
  }
}

/** Only a pending order can ship; raised by the admin command's `orders ship`. */
export class OrderNotPendingError extends Error {
  override readonly name = 'OrderNotPendingError';
  constructor(
    readonly orderId: string,
    readonly status: string,
  ) {
    super(`Order ${orderId} is ${status}, not pending`);
  }
}

/**
 * The store is known to be too large for one uncompressed response, and the client accepted no
 * compressed coding: refused before anything is read (lib/core/orders/listing-size.ts).
 */
export class ListingTooLargeUncompressedError extends CodedError {
  override readonly name = 'ListingTooLargeUncompressedError';
  constructor(
    readonly approximateOrders: number,
    readonly maxOrders: number,
  ) {
    super(
      'LISTING_TOO_LARGE_UNCOMPRESSED',
      `About ${approximateOrders} orders; an uncompressed listing is refused from ${maxOrders}`,
    );
  }
}
