package io.lakesink.catalog.unity;

import java.util.Optional;

/** What authenticates each Unity Catalog request. */
interface Credentials {

  /** The local open-source server in development: no header at all. */
  Credentials UNAUTHENTICATED =
      new Credentials() {
        @Override
        public Optional<String> authorization() {
          return Optional.empty();
        }

        @Override
        public void renew() {}

        @Override
        public String describe() {
          return "no authentication: local development server";
        }
      };

  /** The {@code Authorization} header value, fetching a token first if needed. */
  Optional<String> authorization();

  /** Forget the current token because the server refused it; the next call fetches a new one. */
  void renew();

  /** For logs: who we are, never a secret. */
  String describe();
}
