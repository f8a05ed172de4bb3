// Construct ids made from the service's own names (operation ids, function ids, plans, paths).

/** `cancelOrder` → `CancelOrder`, `list-orders` → `ListOrders`, `/store/orders` → `StoreOrders`. */
export function pascalCase(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}
