package io.basalt.client.security;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * SCRAM-SHA-256: how a client proves it knows a user's password, and the server proves it knows
 * what was made from it, without the password ever crossing the wire or resting on the server.
 *
 * <p>SCRAM (Salted Challenge Response Authentication Mechanism, <a
 * href="https://www.rfc-editor.org/rfc/rfc5802">RFC 5802</a>) with SHA-256 as its hash (<a
 * href="https://www.rfc-editor.org/rfc/rfc7677">RFC 7677</a>) is an exchange of four messages:
 *
 * <ol>
 *   <li>client-first: the user name and a random client nonce, {@code n,,n=alice,r=<cnonce>};
 *   <li>server-first: the nonce extended with the server's own random part, the user's salt and
 *       iteration count, {@code r=<cnonce><snonce>,s=<salt>,i=4096};
 *   <li>client-final: the whole nonce and a proof, {@code c=biws,r=<nonce>,p=<proof>}: the client
 *       derives {@code SaltedPassword = PBKDF2-HMAC-SHA-256(password, salt, i)}, from it a ClientKey,
 *       and sends ClientKey XOR HMAC(SHA-256(ClientKey), AuthMessage), where AuthMessage is the text
 *       of the three messages so far, so the proof is good for this exchange only;
 *   <li>server-final: the server recovers the ClientKey from the proof, checks that its SHA-256 is
 *       the StoredKey it keeps, and answers {@code v=<signature>}, an HMAC of AuthMessage under the
 *       ServerKey, by which the client knows it talks to a server that holds the user's credential
 *       (or {@code e=<error>} when it refuses).
 * </ol>
 *
 * <p>The server keeps a {@link Credential} per user: the salt, the iteration count, StoredKey
 * (SHA-256 of ClientKey) and ServerKey, never the password. A stolen table of credentials does not
 * let one log in: a proof needs the ClientKey, and the StoredKey is only its hash; recovering the
 * password needs a brute force slowed down by the PBKDF2 iterations, per user thanks to the salt.
 * An eavesdropper learns nothing reusable either: the proof is tied to the nonces of its exchange,
 * and a new exchange has a new server nonce.
 *
 * <p>What this implementation does not do: channel binding (the gs2 header is always {@code n,,}
 * and {@code c=} always {@code biws}; TLS, when used, protects the channel on its own), an
 * authorization identity ({@code a=}) or mandatory extensions ({@code m=}), all refused; and
 * SASLprep: a password counts as the UTF-8 bytes of its chars as given, so two passwords that differ
 * only in their Unicode normalization are two different passwords. User names are encoded as RFC 5802
 * asks ({@code ,} as {@code =2C} and {@code =} as {@code =3D}); which names are acceptable is the
 * caller's rule.
 *
 * <p>Each side is a small state machine: {@link Client} and {@link Server} are made for one exchange
 * and refuse calls out of order with an {@link IllegalStateException}. A malformed or refused message
 * is an {@link AuthenticationException} naming what is wrong, whatever the bytes received; no
 * message of either holds a password, a proof, a key or a salt.
 */
public final class Scram {

    /** The mechanism's name, as SASL knows it. */
    public static final String MECHANISM = "SCRAM-SHA-256";
    /** The iterations of a new credential: RFC 7677's minimum. */
    public static final int DEFAULT_ITERATIONS = 4096;
    /** The fewest iterations either side accepts. */
    public static final int MIN_ITERATIONS = 4096;
    /** The most iterations either side accepts: a bound on the work a peer can ask for. */
    public static final int MAX_ITERATIONS = 1_000_000;

    /** The longest message either side accepts, in bytes. */
    static final int MAX_MESSAGE_BYTES = 4096;

    private static final int KEY_BYTES = 32;
    private static final int SALT_BYTES = 24;
    private static final int MIN_SALT_BYTES = 16;
    private static final int MAX_SALT_BYTES = 64;
    private static final int NONCE_BYTES = 24;
    private static final int MIN_SECRET_BYTES = 32;

    private static final String HMAC = "HmacSHA256";
    private static final String PBKDF2 = "PBKDF2WithHmacSHA256";
    private static final String SHA256 = "SHA-256";

    /** The gs2 header of a client without channel binding nor authorization identity. */
    private static final String GS2_HEADER = "n,,";
    /** The base64 of {@link #GS2_HEADER}: the only channel binding data accepted. */
    private static final String CHANNEL_BINDING = "biws";

    private static final byte[] CLIENT_KEY = "Client Key".getBytes(UTF_8);
    private static final byte[] SERVER_KEY = "Server Key".getBytes(UTF_8);

    /** The attributes RFC 5802 defines; anything else is an extension, ignored where allowed. */
    private static final String DEFINED_ATTRIBUTES = "amnrcspvei";

    private static final String CLIENT_FIRST = "client-first-message";
    private static final String SERVER_FIRST = "server-first-message";
    private static final String CLIENT_FINAL = "client-final-message";
    private static final String SERVER_FINAL = "server-final-message";

    private Scram() {}

    /**
     * What the server keeps for a user: never the password. The arrays are held as given (not
     * copied) and must not be changed.
     *
     * @param salt the random salt of PBKDF2, 16 to 64 bytes
     * @param iterations PBKDF2's iterations, from {@link #MIN_ITERATIONS} to {@link #MAX_ITERATIONS}
     * @param storedKey SHA-256(ClientKey), 32 bytes
     * @param serverKey HMAC(SaltedPassword, "Server Key"), 32 bytes
     */
    public record Credential(byte[] salt, int iterations, byte[] storedKey, byte[] serverKey) {

        public Credential {
            Objects.requireNonNull(salt, "salt");
            Objects.requireNonNull(storedKey, "storedKey");
            Objects.requireNonNull(serverKey, "serverKey");
            checkSaltAndIterations(salt, iterations);
            if (storedKey.length != KEY_BYTES) {
                throw new IllegalArgumentException("a StoredKey of " + storedKey.length + " bytes, not " + KEY_BYTES);
            }
            if (serverKey.length != KEY_BYTES) {
                throw new IllegalArgumentException("a ServerKey of " + serverKey.length + " bytes, not " + KEY_BYTES);
            }
        }

        /** A credential for {@code password} with a new random salt of 24 bytes. */
        public static Credential of(char[] password, int iterations, SecureRandom random) {
            Objects.requireNonNull(random, "random");
            byte[] salt = new byte[SALT_BYTES];
            random.nextBytes(salt);
            return of(password, salt, iterations);
        }

        /** The credential for {@code password} with this salt: the same arguments make the same one. */
        public static Credential of(char[] password, byte[] salt, int iterations) {
            Objects.requireNonNull(password, "password");
            Objects.requireNonNull(salt, "salt");
            checkSaltAndIterations(salt, iterations);
            Keys keys = keys(password, salt, iterations);
            keys.clear();
            return new Credential(salt.clone(), iterations, keys.storedKey(), keys.serverKey());
        }

        /**
         * Whether {@code password} is the one this credential was made from: recomputes the keys (as
         * costly as the iterations) and compares them in constant time. For HTTP Basic authentication,
         * where the password itself arrives.
         */
        public boolean matches(char[] password) {
            Objects.requireNonNull(password, "password");
            Keys keys = keys(password, salt, iterations);
            keys.clear();
            return MessageDigest.isEqual(keys.storedKey(), storedKey) & MessageDigest.isEqual(keys.serverKey(), serverKey);
        }

        /**
         * The stable text form, for storage:
         * {@code SCRAM-SHA-256$<iterations>$<base64 salt>$<base64 StoredKey>$<base64 ServerKey>}.
         */
        public String encode() {
            Base64.Encoder b64 = Base64.getEncoder();
            return MECHANISM + "$" + iterations + "$" + b64.encodeToString(salt) + "$" + b64.encodeToString(storedKey)
                    + "$" + b64.encodeToString(serverKey);
        }

        /**
         * The credential of an {@link #encode()}d text.
         *
         * @throws IllegalArgumentException naming what is malformed (never quoting the text)
         */
        public static Credential decode(String text) {
            Objects.requireNonNull(text, "text");
            String[] parts = text.split("\\$", -1);
            if (parts.length != 5 || !parts[0].equals(MECHANISM)) {
                throw new IllegalArgumentException(
                        "a stored credential must read " + MECHANISM + "$<iterations>$<salt>$<StoredKey>$<ServerKey>");
            }
            int iterations = parseIterations(parts[1]);
            if (iterations < 0) {
                throw new IllegalArgumentException("the iteration count of a stored credential is not a number from "
                        + MIN_ITERATIONS + " to " + MAX_ITERATIONS);
            }
            byte[] salt = storedBase64(parts[2], "salt");
            byte[] storedKey = storedBase64(parts[3], "StoredKey");
            byte[] serverKey = storedBase64(parts[4], "ServerKey");
            return new Credential(salt, iterations, storedKey, serverKey);
        }

        private static byte[] storedBase64(String value, String what) {
            byte[] bytes = base64OrNull(value);
            if (bytes == null) {
                throw new IllegalArgumentException("the " + what + " of a stored credential is not canonical base64");
            }
            return bytes;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Credential that && iterations == that.iterations && Arrays.equals(salt, that.salt)
                    && MessageDigest.isEqual(storedKey, that.storedKey) && MessageDigest.isEqual(serverKey, that.serverKey);
        }

        @Override
        public int hashCode() {
            int hash = Integer.hashCode(iterations);
            hash = 31 * hash + Arrays.hashCode(salt);
            hash = 31 * hash + Arrays.hashCode(storedKey);
            return 31 * hash + Arrays.hashCode(serverKey);
        }

        /** No key material: {@code Credential[SCRAM-SHA-256, iterations=4096]}. */
        @Override
        public String toString() {
            return "Credential[" + MECHANISM + ", iterations=" + iterations + "]";
        }
    }

    /** The client side of one exchange. Not thread-safe; one per authentication. */
    public static final class Client {

        private enum Step { NEW, FIRST_SENT, FINAL_SENT, DONE, FAILED }

        private final String user;
        private final char[] password;
        private final String nonce;
        private Step step = Step.NEW;
        private String clientFirstBare;
        private byte[] serverSignature;

        /**
         * A client for {@code user} with {@code password} (copied: the caller may clear its array),
         * with a nonce of 24 random bytes.
         *
         * @throws IllegalArgumentException for an empty user name, or one with a NUL or unpaired
         *     surrogate, or too long for a message
         */
        public Client(String user, char[] password, SecureRandom random) {
            this(user, password, randomNonce(random));
        }

        private Client(String user, char[] password, String nonce) {
            Objects.requireNonNull(user, "user");
            Objects.requireNonNull(password, "password");
            if (user.isEmpty() || user.indexOf('\0') >= 0 || !encodable(user)) {
                throw new IllegalArgumentException("a user name must be non-empty Unicode text without NUL");
            }
            checkNonce(nonce);
            this.user = user;
            this.password = password.clone();
            this.nonce = nonce;
            if (first(false).length > MAX_MESSAGE_BYTES) {
                throw new IllegalArgumentException("a user name of " + user.length() + " chars is too long");
            }
        }

        /** A client with a fixed nonce, for test vectors. */
        static Client withNonce(String user, char[] password, String nonce) {
            return new Client(user, password, nonce);
        }

        /** The client-first-message, UTF-8: {@code n,,n=<user>,r=<client nonce>}. */
        public byte[] first() {
            require(Step.NEW, "first()");
            byte[] message = first(true);
            step = Step.FIRST_SENT;
            return message;
        }

        private byte[] first(boolean keep) {
            String bare = "n=" + encodeName(user) + ",r=" + nonce;
            if (keep) {
                clientFirstBare = bare;
            }
            return (GS2_HEADER + bare).getBytes(UTF_8);
        }

        /**
         * Given the server-first-message ({@code r=<nonce>,s=<salt>,i=<iterations>}), the
         * client-final-message {@code c=biws,r=<nonce>,p=<proof>}. Costs the PBKDF2 iterations the
         * server asks for.
         *
         * @throws AuthenticationException if the server refused, its nonce does not extend the
         *     client's, its iteration count is out of [{@link #MIN_ITERATIONS}, {@link
         *     #MAX_ITERATIONS}], or the message is malformed (saying which)
         */
        public byte[] finish(byte[] serverFirst) {
            require(Step.FIRST_SENT, "finish()");
            step = Step.FAILED;
            try {
                String text = decodeMessage(serverFirst, SERVER_FIRST);
                List<Attribute> attributes = attributes(text, SERVER_FIRST);
                Attribute first = attributes.getFirst();
                if (first.name() == 'e') {
                    throw refused(first.value());
                }
                refuseMandatoryExtension(first, SERVER_FIRST);
                String fullNonce = value(attributes, 0, 'r', "nonce", SERVER_FIRST);
                checkNonce(fullNonce, SERVER_FIRST);
                if (!fullNonce.startsWith(nonce)) {
                    throw new AuthenticationException("the server's nonce does not start with the client's: "
                            + "a reply to another exchange, or a confused server");
                }
                if (fullNonce.length() == nonce.length()) {
                    throw new AuthenticationException("the server's nonce adds nothing to the client's");
                }
                byte[] salt = base64(value(attributes, 1, 's', "salt", SERVER_FIRST), "salt (s=)", SERVER_FIRST);
                if (salt.length == 0) {
                    throw malformed(SERVER_FIRST, "the salt (s=) is empty");
                }
                String count = value(attributes, 2, 'i', "iteration count", SERVER_FIRST);
                int iterations = parseIterations(count);
                if (iterations < 0) {
                    throw iterationsRefused(count);
                }
                extensionsOnly(attributes, 3, attributes.size(), SERVER_FIRST);

                String withoutProof = "c=" + CHANNEL_BINDING + ",r=" + fullNonce;
                byte[] authMessage = (clientFirstBare + "," + text + "," + withoutProof).getBytes(UTF_8);
                Keys keys = keys(password, salt, iterations);
                byte[] clientSignature = hmac(keys.storedKey(), authMessage);
                byte[] proof = xor(keys.clientKey(), clientSignature);
                serverSignature = hmac(keys.serverKey(), authMessage);
                keys.clear();
                Arrays.fill(keys.serverKey(), (byte) 0);
                Arrays.fill(clientSignature, (byte) 0);
                step = Step.FINAL_SENT;
                return (withoutProof + ",p=" + Base64.getEncoder().encodeToString(proof)).getBytes(UTF_8);
            } finally {
                Arrays.fill(password, '\0');
            }
        }

        /**
         * Checks the server-final-message {@code v=<signature>} (in constant time): the server's proof
         * that it holds the user's credential.
         *
         * @throws AuthenticationException if the server refused ({@code e=<error>}), its signature is
         *     wrong (it does not know the password: an impostor?), or the message is malformed
         */
        public void verify(byte[] serverFinal) {
            require(Step.FINAL_SENT, "verify()");
            step = Step.FAILED;
            try {
                check(serverFinal);
            } finally {
                Arrays.fill(serverSignature, (byte) 0);
            }
        }

        private void check(byte[] serverFinal) {
            String text = decodeMessage(serverFinal, SERVER_FINAL);
            List<Attribute> attributes = attributes(text, SERVER_FINAL);
            Attribute first = attributes.getFirst();
            if (first.name() == 'e') {
                throw refused(first.value());
            }
            if (first.name() != 'v') {
                throw malformed(SERVER_FINAL, "expected a verifier (v=) or an error (e=) first, found " + first.name() + "=");
            }
            byte[] signature = base64(first.value(), "verifier (v=)", SERVER_FINAL);
            extensionsOnly(attributes, 1, attributes.size(), SERVER_FINAL);
            if (!MessageDigest.isEqual(signature, serverSignature)) {
                throw new AuthenticationException("the server could not prove it knows the password of user '"
                        + printable(user) + "' (an impostor?)");
            }
            step = Step.DONE;
        }

        /** True once {@link #verify} succeeded: both sides proved themselves. */
        public boolean authenticated() {
            return step == Step.DONE;
        }

        private void require(Step expected, String call) {
            if (step != expected) {
                throw new IllegalStateException("Scram.Client." + call + " called out of order: the exchange is at " + step);
            }
        }

        private static AuthenticationException refused(String error) {
            return new AuthenticationException("the server refused the authentication: " + printable(error));
        }
    }

    /** The server side of one exchange. Not thread-safe; one per connection attempt. */
    public static final class Server {

        private enum Step { NEW, FIRST_SENT, DONE, FAILED }

        private final Function<String, Credential> lookup;
        private final byte[] secret;
        private final SecureRandom random;
        private final String serverNonce;
        private Step step = Step.NEW;
        private String user;
        private boolean known;
        private Credential credential;
        private String clientFirstBare;
        private String serverFirst;
        private String nonce;

        /**
         * A server finding credentials with {@code lookup}, which returns null for an unknown user.
         * {@code secret} is a server-wide random secret of at least 32 bytes, kept for this use only:
         * an unknown user gets a fake salt, HMAC(secret, user), stable across attempts, so the server's
         * reply does not tell an unknown user from a wrong password.
         */
        public Server(Function<String, Credential> lookup, byte[] secret, SecureRandom random) {
            this(lookup, secret, random, randomNonce(random));
        }

        private Server(Function<String, Credential> lookup, byte[] secret, SecureRandom random, String serverNonce) {
            this.lookup = Objects.requireNonNull(lookup, "lookup");
            Objects.requireNonNull(secret, "secret");
            if (secret.length < MIN_SECRET_BYTES) {
                throw new IllegalArgumentException("a secret of " + secret.length + " bytes; it needs at least " + MIN_SECRET_BYTES);
            }
            this.secret = secret.clone();
            this.random = Objects.requireNonNull(random, "random");
            checkNonce(serverNonce);
            this.serverNonce = serverNonce;
        }

        /** A server that adds a fixed nonce to the client's, for test vectors. */
        static Server withNonce(Function<String, Credential> lookup, byte[] secret, SecureRandom random, String serverNonce) {
            return new Server(lookup, secret, random, serverNonce);
        }

        /**
         * Given the client-first-message ({@code n,,n=<user>,r=<client nonce>}), the
         * server-first-message {@code r=<client nonce><server nonce>,s=<salt>,i=<iterations>}; for an
         * unknown user, a fake salt and {@link #DEFAULT_ITERATIONS}.
         *
         * @throws AuthenticationException if the message is malformed, or asks for channel binding,
         *     an authorization identity or a mandatory extension (saying which)
         */
        public byte[] first(byte[] clientFirst) {
            require(Step.NEW, "first()");
            step = Step.FAILED;
            String text = decodeMessage(clientFirst, CLIENT_FIRST);
            char flag = text.charAt(0);
            if (flag == 'y' || flag == 'p') {
                throw new AuthenticationException("the " + CLIENT_FIRST + " asks for channel binding (gs2 flag '" + flag
                        + "'), which is not supported");
            }
            if (!text.startsWith("n,")) {
                throw malformed(CLIENT_FIRST, "the gs2 header does not start with n, y or p");
            }
            int end = text.indexOf(',', 2);
            if (end < 0) {
                throw malformed(CLIENT_FIRST, "the gs2 header does not end with ','");
            }
            if (end > 2) {
                if (text.startsWith("a=", 2)) {
                    throw new AuthenticationException("the " + CLIENT_FIRST
                            + " names an authorization identity (a=), which is not supported");
                }
                throw malformed(CLIENT_FIRST, "the gs2 header's second field is neither empty nor a=");
            }
            String bare = text.substring(end + 1);
            List<Attribute> attributes = attributes(bare, CLIENT_FIRST);
            refuseMandatoryExtension(attributes.getFirst(), CLIENT_FIRST);
            String name = decodeName(value(attributes, 0, 'n', "user name", CLIENT_FIRST));
            String clientNonce = value(attributes, 1, 'r', "nonce", CLIENT_FIRST);
            checkNonce(clientNonce, CLIENT_FIRST);
            extensionsOnly(attributes, 2, attributes.size(), CLIENT_FIRST);

            user = name;
            byte[] fakeSalt = Arrays.copyOf(hmac(secret, name.getBytes(UTF_8)), SALT_BYTES);
            Credential found = lookup.apply(name);
            known = found != null;
            credential = known ? found : new Credential(fakeSalt, DEFAULT_ITERATIONS, randomKey(), randomKey());
            clientFirstBare = bare;
            nonce = clientNonce + serverNonce;
            serverFirst = "r=" + nonce + ",s=" + Base64.getEncoder().encodeToString(credential.salt()) + ",i="
                    + credential.iterations();
            byte[] message = serverFirst.getBytes(UTF_8);
            if (message.length > MAX_MESSAGE_BYTES) {
                throw malformed(CLIENT_FIRST, "the client's nonce is too long");
            }
            step = Step.FIRST_SENT;
            return message;
        }

        /**
         * Given the client-final-message ({@code c=biws,r=<nonce>,p=<proof>}), checks the proof (in
         * constant time) and returns the server-final-message {@code v=<ServerSignature>}.
         *
         * @throws AuthenticationException if the proof is wrong or the user unknown (the same
         *     message for both), or the message is malformed, its channel binding not {@code biws} or
         *     its nonce not this exchange's (saying which)
         */
        public byte[] finish(byte[] clientFinal) {
            require(Step.FIRST_SENT, "finish()");
            step = Step.FAILED;
            String text = decodeMessage(clientFinal, CLIENT_FINAL);
            List<Attribute> attributes = attributes(text, CLIENT_FINAL);
            String binding = value(attributes, 0, 'c', "channel binding", CLIENT_FINAL);
            if (!binding.equals(CHANNEL_BINDING)) {
                throw new AuthenticationException("the channel binding (c=) of the " + CLIENT_FINAL
                        + " is not that of the gs2 header n,, (biws)");
            }
            String finalNonce = value(attributes, 1, 'r', "nonce", CLIENT_FINAL);
            if (!finalNonce.equals(nonce)) {
                throw new AuthenticationException("the nonce (r=) of the " + CLIENT_FINAL + " is not this exchange's");
            }
            Attribute last = attributes.getLast();
            if (attributes.size() < 3 || last.name() != 'p') {
                throw malformed(CLIENT_FINAL, "the last attribute is not the proof (p=)");
            }
            extensionsOnly(attributes, 2, attributes.size() - 1, CLIENT_FINAL);
            byte[] proof = base64(last.value(), "proof (p=)", CLIENT_FINAL);
            if (proof.length != KEY_BYTES) {
                throw malformed(CLIENT_FINAL, "the proof (p=) is " + proof.length + " bytes, not " + KEY_BYTES);
            }
            String withoutProof = text.substring(0, text.length() - last.value().length() - ",p=".length());

            byte[] authMessage = (clientFirstBare + "," + serverFirst + "," + withoutProof).getBytes(UTF_8);
            byte[] clientSignature = hmac(credential.storedKey(), authMessage);
            byte[] clientKey = xor(proof, clientSignature);
            byte[] storedKey = sha256(clientKey);
            Arrays.fill(clientKey, (byte) 0);
            boolean good = MessageDigest.isEqual(storedKey, credential.storedKey()) & known;
            if (!good) {
                throw new AuthenticationException(
                        "authentication failed for user '" + printable(user) + "': wrong password or no such user");
            }
            byte[] serverSignature = hmac(credential.serverKey(), authMessage);
            step = Step.DONE;
            return ("v=" + Base64.getEncoder().encodeToString(serverSignature)).getBytes(UTF_8);
        }

        /** The user named in the client-first-message; null before {@link #first}. */
        public String user() {
            return user;
        }

        /** True once {@link #finish} succeeded. */
        public boolean authenticated() {
            return step == Step.DONE;
        }

        private byte[] randomKey() {
            byte[] key = new byte[KEY_BYTES];
            random.nextBytes(key);
            return key;
        }

        private void require(Step expected, String call) {
            if (step != expected) {
                throw new IllegalStateException("Scram.Server." + call + " called out of order: the exchange is at " + step);
            }
        }
    }

    // ---- the keys ----

    /** The keys made from a SaltedPassword; {@link #clear()} zeroes the ClientKey. */
    private record Keys(byte[] clientKey, byte[] storedKey, byte[] serverKey) {
        void clear() {
            Arrays.fill(clientKey, (byte) 0);
        }
    }

    private static Keys keys(char[] password, byte[] salt, int iterations) {
        byte[] salted = saltedPassword(password, salt, iterations);
        try {
            byte[] clientKey = hmac(salted, CLIENT_KEY);
            return new Keys(clientKey, sha256(clientKey), hmac(salted, SERVER_KEY));
        } finally {
            Arrays.fill(salted, (byte) 0);
        }
    }

    /** PBKDF2-HMAC-SHA-256 of the password's UTF-8 bytes (the JDK's encoding of PBEKeySpec chars). */
    private static byte[] saltedPassword(char[] password, byte[] salt, int iterations) {
        PBEKeySpec spec = new PBEKeySpec(password, salt, iterations, KEY_BYTES * 8);
        try {
            return SecretKeyFactory.getInstance(PBKDF2).generateSecret(spec).getEncoded();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JDK cannot compute " + PBKDF2, e);
        } finally {
            spec.clearPassword();
        }
    }

    private static byte[] hmac(byte[] key, byte[] data) {
        try {
            Mac mac = Mac.getInstance(HMAC);
            mac.init(new SecretKeySpec(key, HMAC));
            return mac.doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JDK cannot compute " + HMAC, e);
        }
    }

    private static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance(SHA256).digest(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JDK cannot compute " + SHA256, e);
        }
    }

    private static byte[] xor(byte[] a, byte[] b) {
        byte[] result = new byte[a.length];
        for (int i = 0; i < a.length; i++) {
            result[i] = (byte) (a[i] ^ b[i]);
        }
        return result;
    }

    private static void checkSaltAndIterations(byte[] salt, int iterations) {
        if (salt.length < MIN_SALT_BYTES || salt.length > MAX_SALT_BYTES) {
            throw new IllegalArgumentException(
                    "a salt of " + salt.length + " bytes; it must have " + MIN_SALT_BYTES + " to " + MAX_SALT_BYTES);
        }
        if (iterations < MIN_ITERATIONS || iterations > MAX_ITERATIONS) {
            throw new IllegalArgumentException(
                    iterations + " iterations; they must be from " + MIN_ITERATIONS + " to " + MAX_ITERATIONS);
        }
    }

    // ---- the messages ----

    /** One {@code <letter>=<value>} of a message. */
    private record Attribute(char name, String value) {}

    private static String randomNonce(SecureRandom random) {
        Objects.requireNonNull(random, "random");
        byte[] bytes = new byte[NONCE_BYTES];
        random.nextBytes(bytes);
        return Base64.getEncoder().encodeToString(bytes);
    }

    /** Whether a nonce is printable ASCII without ',' (RFC 5802's {@code printable}). */
    private static boolean printableNonce(String nonce) {
        if (nonce.isEmpty()) {
            return false;
        }
        for (int i = 0; i < nonce.length(); i++) {
            char c = nonce.charAt(i);
            if (c < 0x21 || c > 0x7e || c == ',') {
                return false;
            }
        }
        return true;
    }

    private static void checkNonce(String nonce) {
        Objects.requireNonNull(nonce, "nonce");
        if (!printableNonce(nonce)) {
            throw new IllegalArgumentException("a nonce must be printable ASCII without ','");
        }
    }

    private static void checkNonce(String nonce, String message) {
        if (!printableNonce(nonce)) {
            throw malformed(message, "the nonce (r=) is not printable ASCII");
        }
    }

    /** The message as text: at most 4 KiB of valid UTF-8, not empty. */
    private static String decodeMessage(byte[] bytes, String message) {
        Objects.requireNonNull(bytes, message);
        if (bytes.length == 0) {
            throw malformed(message, "it is empty");
        }
        if (bytes.length > MAX_MESSAGE_BYTES) {
            throw malformed(message, "it has " + bytes.length + " bytes, more than the " + MAX_MESSAGE_BYTES + " allowed");
        }
        try {
            return UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw malformed(message, "it is not valid UTF-8");
        }
    }

    private static boolean encodable(String text) {
        try {
            UTF_8.newEncoder().onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT)
                    .encode(CharBuffer.wrap(text));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    /** The attributes of a message, each {@code <letter>=<non-empty value without NUL>}. */
    private static List<Attribute> attributes(String text, String message) {
        String[] parts = text.split(",", -1);
        List<Attribute> attributes = new ArrayList<>(parts.length);
        for (int i = 0; i < parts.length; i++) {
            String part = parts[i];
            if (part.length() < 3 || !isAsciiLetter(part.charAt(0)) || part.charAt(1) != '=') {
                throw malformed(message, "attribute " + (i + 1) + " is not of the form <letter>=<value>");
            }
            if (part.indexOf('\0') >= 0) {
                throw malformed(message, "attribute " + part.charAt(0) + "= contains a NUL");
            }
            attributes.add(new Attribute(part.charAt(0), part.substring(2)));
        }
        return attributes;
    }

    private static boolean isAsciiLetter(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    /** The value of the attribute that must be at {@code index}, named {@code name}. */
    private static String value(List<Attribute> attributes, int index, char name, String what, String message) {
        if (index >= attributes.size()) {
            throw malformed(message, "the " + what + " (" + name + "=) is missing");
        }
        Attribute attribute = attributes.get(index);
        if (attribute.name() != name) {
            throw malformed(message, "expected the " + what + " (" + name + "=) as attribute " + (index + 1) + ", found "
                    + attribute.name() + "=");
        }
        return attribute.value();
    }

    /** Attributes [from, to) must be extensions (ignored), not attributes RFC 5802 places elsewhere. */
    private static void extensionsOnly(List<Attribute> attributes, int from, int to, String message) {
        for (int i = from; i < to; i++) {
            char name = attributes.get(i).name();
            if (DEFINED_ATTRIBUTES.indexOf(name) >= 0) {
                throw malformed(message, "attribute " + name + "= is repeated or out of order");
            }
        }
    }

    private static void refuseMandatoryExtension(Attribute first, String message) {
        if (first.name() == 'm') {
            throw new AuthenticationException("the " + message + " asks for a mandatory extension (m=), which is not supported");
        }
    }

    /** Canonical base64 (padded, no stray bits), or null. */
    private static byte[] base64OrNull(String value) {
        byte[] bytes;
        try {
            bytes = Base64.getDecoder().decode(value);
        } catch (IllegalArgumentException e) {
            return null;
        }
        return Base64.getEncoder().encodeToString(bytes).equals(value) ? bytes : null;
    }

    private static byte[] base64(String value, String what, String message) {
        byte[] bytes = base64OrNull(value);
        if (bytes == null) {
            throw malformed(message, "the " + what + " is not canonical base64");
        }
        return bytes;
    }

    /** A positive decimal without leading zero in [MIN_ITERATIONS, MAX_ITERATIONS], or -1. */
    private static int parseIterations(String text) {
        if (text.isEmpty() || text.length() > 7 || text.charAt(0) == '0') {
            return -1;
        }
        int value = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value >= MIN_ITERATIONS && value <= MAX_ITERATIONS ? value : -1;
    }

    /** Why an iteration count that {@link #parseIterations} refused is refused. */
    private static AuthenticationException iterationsRefused(String count) {
        if (count.isEmpty() || count.charAt(0) == '0' || !count.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return malformed(SERVER_FIRST, "the iteration count (i=) is not a positive decimal number");
        }
        if (count.length() <= 7 && Integer.parseInt(count) < MIN_ITERATIONS) {
            return new AuthenticationException("the server asks for " + count + " iterations, fewer than the "
                    + MIN_ITERATIONS + " required");
        }
        return new AuthenticationException("the server asks for " + printable(count) + " iterations, more than the "
                + MAX_ITERATIONS + " allowed");
    }

    /** RFC 5802's saslname: ',' as =2C and '=' as =3D. */
    static String encodeName(String name) {
        return name.replace("=", "=3D").replace(",", "=2C");
    }

    private static String decodeName(String encoded) {
        StringBuilder name = new StringBuilder(encoded.length());
        for (int i = 0; i < encoded.length(); i++) {
            char c = encoded.charAt(i);
            if (c != '=') {
                name.append(c);
            } else if (encoded.startsWith("2C", i + 1)) {
                name.append(',');
                i += 2;
            } else if (encoded.startsWith("3D", i + 1)) {
                name.append('=');
                i += 2;
            } else {
                throw malformed(CLIENT_FIRST, "the user name (n=) has an '=' not followed by 2C or 3D");
            }
        }
        return name.toString();
    }

    private static AuthenticationException malformed(String message, String what) {
        return new AuthenticationException("malformed " + message + ": " + what);
    }

    /**
     * Text from a peer, fit for a message: printable ASCII, every other character as a Java
     * unicode escape, at most 100 characters.
     */
    private static String printable(String text) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < text.length(); i++) {
            if (i == 100) {
                return out.append("...").toString();
            }
            char c = text.charAt(i);
            if (c >= 0x20 && c <= 0x7e && c != '\\') {
                out.append(c);
            } else {
                out.append(String.format("\\u%04x", (int) c));
            }
        }
        return out.toString();
    }
}
