// `/address`: event.getClientAddress() (ADDRESS_HEADER and XFF_DEPTH choose a proxy header, as adapter-node).
export function load({ getClientAddress }) {
  return { address: getClientAddress() };
}
