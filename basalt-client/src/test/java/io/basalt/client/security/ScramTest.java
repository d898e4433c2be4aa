package io.basalt.client.security;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.basalt.client.security.Scram.Client;
import io.basalt.client.security.Scram.Credential;
import io.basalt.client.security.Scram.Server;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Random;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

class ScramTest {

    // RFC 7677 section 3
    private static final String RFC_USER = "user";
    private static final String RFC_PASSWORD = "pencil";
    private static final String RFC_CLIENT_NONCE = "rOprNGfwEbeRWgbNEkqO";
    private static final String RFC_SERVER_NONCE = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
    private static final String RFC_SALT = "W22ZaJ0SNY7soEsUEjb6gQ==";
    private static final String RFC_CLIENT_FIRST = "n,,n=user,r=rOprNGfwEbeRWgbNEkqO";
    private static final String RFC_SERVER_FIRST =
            "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
    private static final String RFC_CLIENT_FINAL = "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
            + "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
    private static final String RFC_SERVER_FINAL = "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=";

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final byte[] SECRET = "a server-wide secret of 32 bytes or more".getBytes(UTF_8);
    private static final String PASSWORD = "correct horse battery staple";
    /** Made once: each credential costs the 4096 iterations of PBKDF2. */
    private static final Credential ALICE = Credential.of(PASSWORD.toCharArray(), Scram.DEFAULT_ITERATIONS, RANDOM);
    private static final Map<String, Credential> USERS = Map.of("alice", ALICE);

    // ---- the published vector ----

    @Test
    void theClientProducesRfc7677sTestVector() {
        Client client = Client.withNonce(RFC_USER, RFC_PASSWORD.toCharArray(), RFC_CLIENT_NONCE);
        assertThat(text(client.first())).isEqualTo(RFC_CLIENT_FIRST);
        assertThat(text(client.finish(bytes(RFC_SERVER_FIRST)))).isEqualTo(RFC_CLIENT_FINAL);
        assertThat(client.authenticated()).isFalse();
        client.verify(bytes(RFC_SERVER_FINAL));
        assertThat(client.authenticated()).isTrue();
    }

    @Test
    void theServerProducesRfc7677sTestVector() {
        Credential credential = Credential.of(RFC_PASSWORD.toCharArray(), Base64.getDecoder().decode(RFC_SALT), 4096);
        Server server = Server.withNonce(Map.of(RFC_USER, credential)::get, SECRET, RANDOM, RFC_SERVER_NONCE);
        assertThat(server.user()).isNull();
        assertThat(text(server.first(bytes(RFC_CLIENT_FIRST)))).isEqualTo(RFC_SERVER_FIRST);
        assertThat(server.user()).isEqualTo(RFC_USER);
        assertThat(server.authenticated()).isFalse();
        assertThat(text(server.finish(bytes(RFC_CLIENT_FINAL)))).isEqualTo(RFC_SERVER_FINAL);
        assertThat(server.authenticated()).isTrue();
    }

    /** The vector recomputed from RFC 5802's formulas with a PBKDF2 of our own, not Scram's code. */
    @Test
    void theVectorHoldsByAnIndependentComputation() throws GeneralSecurityException {
        byte[] salted = hi(bytes(RFC_PASSWORD), Base64.getDecoder().decode(RFC_SALT), 4096);
        byte[] clientKey = hmac(salted, bytes("Client Key"));
        byte[] storedKey = sha256(clientKey);
        byte[] serverKey = hmac(salted, bytes("Server Key"));
        String withoutProof = RFC_CLIENT_FINAL.substring(0, RFC_CLIENT_FINAL.indexOf(",p="));
        byte[] authMessage = bytes(RFC_CLIENT_FIRST.substring(3) + "," + RFC_SERVER_FIRST + "," + withoutProof);
        byte[] proof = xor(clientKey, hmac(storedKey, authMessage));
        assertThat(withoutProof + ",p=" + b64(proof)).isEqualTo(RFC_CLIENT_FINAL);
        assertThat("v=" + b64(hmac(serverKey, authMessage))).isEqualTo(RFC_SERVER_FINAL);

        Credential credential = Credential.of(RFC_PASSWORD.toCharArray(), Base64.getDecoder().decode(RFC_SALT), 4096);
        assertThat(credential.storedKey()).isEqualTo(storedKey);
        assertThat(credential.serverKey()).isEqualTo(serverKey);
    }

    /** The JDK's PBKDF2 takes the UTF-8 of the password's chars, as the Javadoc promises. */
    @Test
    void aPasswordCountsAsTheUtf8OfItsChars() throws GeneralSecurityException {
        String password = "pässwörd ☃ \uD834\uDD1E";
        byte[] salt = new byte[24];
        new Random(7).nextBytes(salt);
        Credential credential = Credential.of(password.toCharArray(), salt, 4096);
        byte[] salted = hi(password.getBytes(UTF_8), salt, 4096);
        assertThat(credential.storedKey()).isEqualTo(sha256(hmac(salted, bytes("Client Key"))));
        assertThat(credential.serverKey()).isEqualTo(hmac(salted, bytes("Server Key")));
    }

    // ---- exchanges ----

    @Test
    void aFullExchangeAuthenticatesBothSides() {
        Client client = new Client("alice", PASSWORD.toCharArray(), RANDOM);
        Server server = new Server(USERS::get, SECRET, RANDOM);
        exchange(client, server);
        assertThat(server.user()).isEqualTo("alice");
        assertThat(server.authenticated()).isTrue();
        assertThat(client.authenticated()).isTrue();
    }

    @Test
    void theClientCopiesThePassword() {
        char[] password = PASSWORD.toCharArray();
        Client client = new Client("alice", password, RANDOM);
        Arrays.fill(password, 'x');
        Server server = new Server(USERS::get, SECRET, RANDOM);
        exchange(client, server);
        assertThat(server.authenticated()).isTrue();
    }

    @Test
    void eachExchangeHasItsOwnNonces() {
        String first = text(new Client("alice", PASSWORD.toCharArray(), RANDOM).first());
        String second = text(new Client("alice", PASSWORD.toCharArray(), RANDOM).first());
        assertThat(first).startsWith("n,,n=alice,r=").isNotEqualTo(second);
        String nonce = first.substring("n,,n=alice,r=".length());
        assertThat(nonce).hasSize(32).matches("[A-Za-z0-9+/]+");
        String serverFirst = text(new Server(USERS::get, SECRET, RANDOM).first(bytes(first)));
        assertThat(serverFirst).startsWith("r=" + nonce).matches("r=[^,]{64},s=[A-Za-z0-9+/]{32},i=4096");
    }

    @Test
    void userNamesWithCommaAndEqualsSurviveTheEncoding() {
        String name = "a,b=c=2C,=3D";
        Credential credential = Credential.of("pw".toCharArray(), new byte[16], 4096);
        Client client = new Client(name, "pw".toCharArray(), RANDOM);
        byte[] first = client.first();
        assertThat(text(first)).startsWith("n,,n=a=2Cb=3Dc=3D2C=2C=3D3D,r=");
        Server server = new Server(Map.of(name, credential)::get, SECRET, RANDOM);
        client.verify(server.finish(client.finish(server.first(first))));
        assertThat(server.user()).isEqualTo(name);
        assertThat(server.authenticated()).isTrue();
        assertThat(client.authenticated()).isTrue();
    }

    @Test
    void aWrongPasswordFailsWithTheSameMessageAsAnUnknownUser() {
        Server known = new Server(USERS::get, SECRET, RANDOM);
        Throwable wrong = catchThrowable(() -> exchange(new Client("alice", "guess".toCharArray(), RANDOM), known));
        Server unknown = new Server(name -> null, SECRET, RANDOM);
        Throwable missing = catchThrowable(() -> exchange(new Client("alice", PASSWORD.toCharArray(), RANDOM), unknown));
        assertThat(wrong).isInstanceOf(AuthenticationException.class)
                .hasMessage("authentication failed for user 'alice': wrong password or no such user");
        assertThat(missing).isInstanceOf(AuthenticationException.class).hasMessage(wrong.getMessage());
        assertThat(known.authenticated()).isFalse();
        assertThat(unknown.authenticated()).isFalse();
        assertThat(unknown.user()).isEqualTo("alice");
    }

    @Test
    void anUnknownUserGetsAFakeSaltStableForItsNameAndLikeARealOne() {
        String bob = saltOf("bob", new Server(USERS::get, SECRET, RANDOM));
        assertThat(saltOf("bob", new Server(USERS::get, SECRET, RANDOM))).isEqualTo(bob);
        assertThat(saltOf("carol", new Server(USERS::get, SECRET, RANDOM))).isNotEqualTo(bob);
        byte[] otherSecret = "another server-wide secret, as long as needed".getBytes(UTF_8);
        assertThat(saltOf("bob", new Server(USERS::get, otherSecret, RANDOM))).isNotEqualTo(bob);
        // the same length and iteration count as a real user's
        assertThat(Base64.getDecoder().decode(bob)).hasSameSizeAs(ALICE.salt());
        String serverFirst = text(new Server(USERS::get, SECRET, RANDOM).first(bytes("n,,n=bob,r=abc")));
        assertThat(serverFirst).endsWith(",i=" + Scram.DEFAULT_ITERATIONS);
        assertThat(saltOf("alice", new Server(USERS::get, SECRET, RANDOM))).isEqualTo(b64(ALICE.salt()));
    }

    @Test
    void aTamperedProofFails() {
        Client client = new Client("alice", PASSWORD.toCharArray(), RANDOM);
        Server server = new Server(USERS::get, SECRET, RANDOM);
        String clientFinal = text(client.finish(server.first(client.first())));
        int at = clientFinal.indexOf(",p=") + 3;
        byte[] proof = Base64.getDecoder().decode(clientFinal.substring(at));
        proof[5] ^= 1;
        assertThatThrownBy(() -> server.finish(bytes(clientFinal.substring(0, at) + b64(proof))))
                .isInstanceOf(AuthenticationException.class).hasMessageContaining("wrong password or no such user");
        assertThat(server.authenticated()).isFalse();
    }

    @Test
    void aTamperedNonceFails() {
        Client client = new Client("alice", PASSWORD.toCharArray(), RANDOM);
        Server server = new Server(USERS::get, SECRET, RANDOM);
        String clientFinal = text(client.finish(server.first(client.first())));
        String tampered = clientFinal.replaceFirst(",r=(.)", ",r=$1x");
        assertThat(tampered).isNotEqualTo(clientFinal);
        assertThatThrownBy(() -> server.finish(bytes(tampered))).isInstanceOf(AuthenticationException.class)
                .hasMessageContaining("nonce (r=)").hasMessageContaining("not this exchange's");
    }

    @Test
    void aNonceReplayedIntoAnotherExchangeFails() {
        Client client = new Client("alice", PASSWORD.toCharArray(), RANDOM);
        byte[] clientFirst = client.first();
        byte[] clientFinal = client.finish(new Server(USERS::get, SECRET, RANDOM).first(clientFirst));
        Server replayed = new Server(USERS::get, SECRET, RANDOM);
        replayed.first(clientFirst);
        assertThatThrownBy(() -> replayed.finish(clientFinal)).isInstanceOf(AuthenticationException.class)
                .hasMessageContaining("not this exchange's");
    }

    @Test
    void aTamperedChannelBindingFails() {
        Client client = new Client("alice", PASSWORD.toCharArray(), RANDOM);
        Server server = new Server(USERS::get, SECRET, RANDOM);
        String clientFinal = text(client.finish(server.first(client.first())));
        String tampered = clientFinal.replace("c=biws", "c=eSws"); // base64 of "y,,"
        assertThatThrownBy(() -> server.finish(bytes(tampered))).isInstanceOf(AuthenticationException.class)
                .hasMessageContaining("channel binding (c=)");
    }

    @Test
    void aManInTheMiddleChangingTheSaltMakesTheProofFail() {
        Client client = new Client("alice", PASSWORD.toCharArray(), RANDOM);
        Server server = new Server(USERS::get, SECRET, RANDOM);
        String serverFirst = text(server.first(client.first()));
        byte[] otherSalt = ALICE.salt().clone();
        otherSalt[0] ^= 1;
        String forged = serverFirst.replace(b64(ALICE.salt()), b64(otherSalt));
        assertThat(forged).isNotEqualTo(serverFirst);
        byte[] clientFinal = client.finish(bytes(forged));
        assertThatThrownBy(() -> server.finish(clientFinal)).isInstanceOf(AuthenticationException.class)
                .hasMessageContaining("wrong password or no such user");
    }

    @Test
    void aServerWithoutTheRightServerKeyCannotProveItself() {
        byte[] wrongServerKey = ALICE.serverKey().clone();
        wrongServerKey[0] ^= 1;
        Credential stolenStoredKey = new Credential(ALICE.salt(), ALICE.iterations(), ALICE.storedKey(), wrongServerKey);
        Client client = new Client("alice", PASSWORD.toCharArray(), RANDOM);
        Server impostor = new Server(Map.of("alice", stolenStoredKey)::get, SECRET, RANDOM);
        byte[] serverFinal = impostor.finish(client.finish(impostor.first(client.first())));
        assertThatThrownBy(() -> client.verify(serverFinal)).isInstanceOf(AuthenticationException.class)
                .hasMessageContaining("could not prove it knows the password").hasMessageContaining("impostor");
        assertThat(client.authenticated()).isFalse();
    }

    @Test
    void aForgedServerSignatureFails() {
        Client client = new Client("alice", PASSWORD.toCharArray(), RANDOM);
        Server server = new Server(USERS::get, SECRET, RANDOM);
        byte[] signature = Base64.getDecoder().decode(text(server.finish(client.finish(server.first(client.first()))))
                .substring(2));
        signature[31] ^= (byte) 0x80;
        assertThatThrownBy(() -> client.verify(bytes("v=" + b64(signature)))).isInstanceOf(AuthenticationException.class)
                .hasMessageContaining("impostor");
    }

    /** Someone holding the credential table (StoredKey, ServerKey) still cannot make a proof. */
    @Test
    void aStolenCredentialDoesNotLogIn() throws GeneralSecurityException {
        Server server = new Server(USERS::get, SECRET, RANDOM);
        String clientFirst = "n,,n=alice,r=thief";
        String serverFirst = text(server.first(bytes(clientFirst)));
        String nonce = serverFirst.substring(2, serverFirst.indexOf(','));
        String withoutProof = "c=biws,r=" + nonce;
        byte[] authMessage = bytes(clientFirst.substring(3) + "," + serverFirst + "," + withoutProof);
        // the best guess for ClientKey from the table is the StoredKey itself
        byte[] proof = xor(ALICE.storedKey(), hmac(ALICE.storedKey(), authMessage));
        assertThatThrownBy(() -> server.finish(bytes(withoutProof + ",p=" + b64(proof))))
                .isInstanceOf(AuthenticationException.class).hasMessageContaining("wrong password");
    }

    @Test
    void aServerErrorIsReportedAsARefusal() {
        Client client = Client.withNonce(RFC_USER, RFC_PASSWORD.toCharArray(), RFC_CLIENT_NONCE);
        client.first();
        client.finish(bytes(RFC_SERVER_FIRST));
        assertThatThrownBy(() -> client.verify(bytes("e=invalid-proof"))).isInstanceOf(AuthenticationException.class)
                .hasMessage("the server refused the authentication: invalid-proof");
        assertThat(client.authenticated()).isFalse();

        Client early = Client.withNonce(RFC_USER, RFC_PASSWORD.toCharArray(), RFC_CLIENT_NONCE);
        early.first();
        assertThatThrownBy(() -> early.finish(bytes("e=unknown-user\n"))).isInstanceOf(AuthenticationException.class)
                .hasMessage("the server refused the authentication: unknown-user\\u000a");
    }

    @Test
    void theClientRefusesABadServerFirstMessageSayingWhy() {
        String nonce = RFC_CLIENT_NONCE;
        String salt = RFC_SALT;
        assertClientFinishRefuses("r=someoneElse1234,s=" + salt + ",i=4096", "does not start with the client's");
        assertClientFinishRefuses("r=" + nonce + ",s=" + salt + ",i=4096", "adds nothing");
        assertClientFinishRefuses("r=" + nonce + "x,s=" + salt + ",i=4095", "4095 iterations, fewer than the 4096");
        assertClientFinishRefuses("r=" + nonce + "x,s=" + salt + ",i=1000001", "more than the 1000000 allowed");
        assertClientFinishRefuses("r=" + nonce + "x,s=" + salt + ",i=99999999999999999999", "more than the 1000000");
        assertClientFinishRefuses("r=" + nonce + "x,s=" + salt + ",i=04096", "not a positive decimal");
        assertClientFinishRefuses("r=" + nonce + "x,s=" + salt + ",i=-4096", "not a positive decimal");
        assertClientFinishRefuses("r=" + nonce + "x,s=" + salt, "iteration count (i=) is missing");
        assertClientFinishRefuses("r=" + nonce + "x,i=4096,s=" + salt, "expected the salt (s=) as attribute 2");
        assertClientFinishRefuses("r=" + nonce + "x,s=W22ZaJ0SNY7soEsUEjb6g,i=4096", "salt (s=) is not canonical base64");
        assertClientFinishRefuses("r=" + nonce + "x,s=W2*ZaJ0SNY7soEsUEjb6gQ==,i=4096", "salt (s=) is not canonical base64");
        assertClientFinishRefuses("r=" + nonce + "x,s=" + salt + ",i=4096,r=again", "r= is repeated or out of order");
        assertClientFinishRefuses("m=must,r=" + nonce + "x,s=" + salt + ",i=4096", "mandatory extension (m=)");
        assertClientFinishRefuses("r=" + nonce + "x,s=" + salt + ",i=4096,", "attribute 4 is not of the form");
        assertClientFinishRefuses("r=" + nonce + "\u00e9,s=" + salt + ",i=4096", "nonce (r=) is not printable");
        assertClientFinishRefuses("", "is empty");
    }

    @Test
    void theClientIgnoresExtensionsOfTheServer() {
        Client client = Client.withNonce(RFC_USER, RFC_PASSWORD.toCharArray(), RFC_CLIENT_NONCE);
        client.first();
        assertThat(text(client.finish(bytes(RFC_SERVER_FIRST + ",x=extension")))).startsWith("c=biws,r=");
    }

    @Test
    void theServerRefusesABadClientFirstMessageSayingWhy() {
        assertServerFirstRefuses("y,,n=alice,r=abc", "channel binding (gs2 flag 'y')");
        assertServerFirstRefuses("p=tls-unique,,n=alice,r=abc", "channel binding (gs2 flag 'p')");
        assertServerFirstRefuses("n,a=admin,n=alice,r=abc", "authorization identity (a=)");
        assertServerFirstRefuses("n,,m=ext,n=alice,r=abc", "mandatory extension (m=)");
        assertServerFirstRefuses("n,x,n=alice,r=abc", "second field is neither empty nor a=");
        assertServerFirstRefuses("q,,n=alice,r=abc", "gs2 header does not start with n, y or p");
        assertServerFirstRefuses("n,", "does not end with ','");
        assertServerFirstRefuses("n,,", "attribute 1 is not of the form");
        assertServerFirstRefuses("n,,r=abc,n=alice", "expected the user name (n=) as attribute 1");
        assertServerFirstRefuses("n,,n=alice", "nonce (r=) is missing");
        assertServerFirstRefuses("n,,n=alice,r=", "attribute 2 is not of the form");
        assertServerFirstRefuses("n,,n=al=41ice,r=abc", "'=' not followed by 2C or 3D");
        assertServerFirstRefuses("n,,n=alice=,r=abc", "'=' not followed by 2C or 3D");
        assertServerFirstRefuses("n,,n=al\0ice,r=abc", "contains a NUL");
        assertServerFirstRefuses("n,,n=alice,r=a b", "nonce (r=) is not printable");
        assertServerFirstRefuses("n,,n=alice,r=abc,n=again", "n= is repeated or out of order");
        assertServerFirstRefuses("", "is empty");
        assertServerFirstRefuses("n,,n=alice,r=" + "x".repeat(Scram.MAX_MESSAGE_BYTES), "more than the 4096 allowed");
        assertServerFirstRefuses(new byte[] {'n', ',', ',', 'n', '=', (byte) 0xc3, ',', 'r', '=', 'a'}, "not valid UTF-8");
        assertServerFirstRefuses(new byte[] {'n', ',', ',', 'n', '=', (byte) 0xed, (byte) 0xa0, (byte) 0x80, ',', 'r', '=',
            'a'}, "not valid UTF-8");
    }

    @Test
    void theServerRefusesABadClientFinalMessageSayingWhy() {
        String nonce = "abc" + RFC_SERVER_NONCE;
        String proof = "dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
        assertServerFinishRefuses("c=biws,r=" + nonce, "last attribute is not the proof (p=)");
        assertServerFinishRefuses("c=biws,r=" + nonce + ",p=" + proof + ",x=y", "last attribute is not the proof (p=)");
        assertServerFinishRefuses("r=" + nonce + ",c=biws,p=" + proof, "expected the channel binding (c=) as attribute 1");
        assertServerFinishRefuses("c=biws,p=" + proof, "expected the nonce (r=) as attribute 2");
        assertServerFinishRefuses("c=biws,r=" + nonce + ",p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ",
                "proof (p=) is not canonical base64");
        assertServerFinishRefuses("c=biws,r=" + nonce + ",p=AAAA", "proof (p=) is 3 bytes, not 32");
        assertServerFinishRefuses("c=biws,r=" + nonce + ",r=" + nonce + ",p=" + proof, "r= is repeated or out of order");
        assertServerFinishRefuses("c=biws,r=" + nonce + ",p=" + proof + ",", "attribute 4 is not of the form");
        assertServerFinishRefuses("c=biws,r=" + nonce + ",x=ext,p=" + proof, "wrong password or no such user");
        assertServerFinishRefuses("c=biws", "nonce (r=) is missing");
    }

    @Test
    void theClientRefusesABadServerFinalMessageSayingWhy() {
        assertClientVerifyRefuses("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4", "verifier (v=) is not canonical base64");
        assertClientVerifyRefuses("x=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=", "expected a verifier (v=) or an error");
        assertClientVerifyRefuses(RFC_SERVER_FINAL + ",v=again", "v= is repeated or out of order");
        assertClientVerifyRefuses("v=AAAA", "could not prove it knows the password");
        assertClientVerifyRefuses("v=", "attribute 1 is not of the form");
        assertClientVerifyRefuses("e=" + "x".repeat(500), "refused the authentication: " + "x".repeat(100) + "...");
    }

    @Test
    void callsOutOfOrderAreIllegalStates() {
        Client client = new Client("alice", PASSWORD.toCharArray(), RANDOM);
        assertThatThrownBy(() -> client.finish(bytes(RFC_SERVER_FIRST))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("finish() called out of order");
        assertThatThrownBy(() -> client.verify(bytes(RFC_SERVER_FINAL))).isInstanceOf(IllegalStateException.class);
        Server server = new Server(USERS::get, SECRET, RANDOM);
        assertThatThrownBy(() -> server.finish(bytes(RFC_CLIENT_FINAL))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("finish() called out of order");
        byte[] clientFirst = client.first();
        assertThatThrownBy(client::first).isInstanceOf(IllegalStateException.class);
        byte[] serverFirst = server.first(clientFirst);
        assertThatThrownBy(() -> server.first(clientFirst)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> client.verify(bytes(RFC_SERVER_FINAL))).isInstanceOf(IllegalStateException.class);
        byte[] clientFinal = client.finish(serverFirst);
        assertThatThrownBy(() -> client.finish(serverFirst)).isInstanceOf(IllegalStateException.class);
        client.verify(server.finish(clientFinal));
        assertThatThrownBy(() -> server.finish(clientFinal)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> client.verify(bytes(RFC_SERVER_FINAL))).isInstanceOf(IllegalStateException.class);
        assertThat(client.authenticated()).isTrue();
        assertThat(server.authenticated()).isTrue();
    }

    @Test
    void aFailedExchangeCannotBeContinued() {
        Server server = new Server(USERS::get, SECRET, RANDOM);
        assertThatThrownBy(() -> server.first(bytes("y,,n=alice,r=abc"))).isInstanceOf(AuthenticationException.class);
        assertThatThrownBy(() -> server.first(bytes("n,,n=alice,r=abc"))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("FAILED");
        assertThatThrownBy(() -> server.finish(bytes(RFC_CLIENT_FINAL))).isInstanceOf(IllegalStateException.class);

        Client client = Client.withNonce(RFC_USER, RFC_PASSWORD.toCharArray(), RFC_CLIENT_NONCE);
        client.first();
        assertThatThrownBy(() -> client.finish(bytes("r=nope,s=" + RFC_SALT + ",i=4096")))
                .isInstanceOf(AuthenticationException.class);
        assertThatThrownBy(() -> client.finish(bytes(RFC_SERVER_FIRST))).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> client.verify(bytes(RFC_SERVER_FINAL))).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void constructorsRefuseBadArguments() {
        assertThatThrownBy(() -> new Client("", PASSWORD.toCharArray(), RANDOM)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Client("a\0b", PASSWORD.toCharArray(), RANDOM))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Client("a\uD800b", PASSWORD.toCharArray(), RANDOM))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Client("u".repeat(5000), PASSWORD.toCharArray(), RANDOM))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("too long");
        assertThatThrownBy(() -> new Server(USERS::get, new byte[31], RANDOM)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 32");
        assertThatThrownBy(() -> Client.withNonce("alice", PASSWORD.toCharArray(), "a,b"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    // ---- malformed input, at random ----

    @Test
    void randomBytesOnlyEverFailAsAuthentication() {
        Random random = new Random(0x5C4A_3256L);
        for (int i = 0; i < 2_000; i++) {
            byte[] junk = randomMessage(random);
            expectOnlyAuthenticationFailure(() -> new Server(USERS::get, SECRET, RANDOM).first(junk), junk);
            Server server = Server.withNonce(USERS::get, SECRET, RANDOM, RFC_SERVER_NONCE);
            server.first(bytes("n,,n=alice,r=abc"));
            expectOnlyAuthenticationFailure(() -> server.finish(junk), junk);
            Client client = Client.withNonce("alice", PASSWORD.toCharArray(), "abc");
            client.first();
            expectOnlyAuthenticationFailure(() -> client.finish(junk), junk);
            if (i % 20 == 0) { // each costs PBKDF2's iterations
                Client verifying = finishedClient();
                expectOnlyAuthenticationFailure(() -> verifying.verify(junk), junk);
            }
        }
    }

    @Test
    void mutationsOfValidMessagesOnlyEverFailAsAuthentication() {
        Random random = new Random(0x6D757461L);
        String clientNonce = "fuzzNonce";
        Client model = Client.withNonce("alice", PASSWORD.toCharArray(), clientNonce);
        Server modelServer = Server.withNonce(USERS::get, SECRET, RANDOM, RFC_SERVER_NONCE);
        byte[] clientFirst = model.first();
        byte[] serverFirst = modelServer.first(clientFirst);
        byte[] clientFinal = model.finish(serverFirst);
        byte[] serverFinal = modelServer.finish(clientFinal);
        model.verify(serverFinal);
        String proof = text(clientFinal).substring(text(clientFinal).indexOf(",p=") + 3);
        List<String> secrets = List.of(PASSWORD, proof, b64(ALICE.storedKey()), b64(ALICE.serverKey()), b64(ALICE.salt()),
                text(serverFinal).substring(2));

        List<String> messages = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            byte[] first = mutate(clientFirst, random);
            messages.add(expectOnlyAuthenticationFailure(
                    () -> Server.withNonce(USERS::get, SECRET, RANDOM, RFC_SERVER_NONCE).first(first), first));
            byte[] last = mutate(clientFinal, random);
            Server server = Server.withNonce(USERS::get, SECRET, RANDOM, RFC_SERVER_NONCE);
            server.first(clientFirst);
            messages.add(expectOnlyAuthenticationFailure(() -> server.finish(last), last));
            if (i % 10 == 0) { // those cost PBKDF2's iterations when they parse
                byte[] challenge = mutate(serverFirst, random);
                Client client = Client.withNonce("alice", PASSWORD.toCharArray(), clientNonce);
                client.first();
                messages.add(expectOnlyAuthenticationFailure(() -> client.finish(challenge), challenge));
                byte[] verifier = mutate(serverFinal, random);
                Client verifying = Client.withNonce("alice", PASSWORD.toCharArray(), clientNonce);
                verifying.first();
                verifying.finish(serverFirst);
                messages.add(expectOnlyAuthenticationFailure(() -> verifying.verify(verifier), verifier));
            }
        }
        List<String> failures = messages.stream().filter(m -> m != null).toList();
        assertThat(failures).hasSizeGreaterThan(2_000);
        for (String message : failures) {
            assertThat(message).doesNotContain(secrets.toArray(String[]::new));
        }
    }

    // ---- stored credentials ----

    @Test
    void aCredentialRoundTripsThroughItsText() {
        String text = ALICE.encode();
        assertThat(text).startsWith("SCRAM-SHA-256$4096$" + b64(ALICE.salt()) + "$")
                .isEqualTo("SCRAM-SHA-256$4096$" + b64(ALICE.salt()) + "$" + b64(ALICE.storedKey()) + "$"
                        + b64(ALICE.serverKey()));
        Credential decoded = Credential.decode(text);
        assertThat(decoded).isEqualTo(ALICE).hasSameHashCodeAs(ALICE).isNotSameAs(ALICE);
        assertThat(decoded.encode()).isEqualTo(text);
        Credential other = Credential.of(PASSWORD.toCharArray(), 4096, RANDOM);
        assertThat(other).isNotEqualTo(ALICE);
        assertThat(Credential.of(PASSWORD.toCharArray(), ALICE.salt(), 4096)).isEqualTo(ALICE);
    }

    @Test
    void aMalformedCredentialTextIsRefusedWithoutQuotingIt() {
        String good = ALICE.encode();
        String[] parts = good.split("\\$");
        List<String> bad = List.of("", "hunter2", good + "$", good.replace("SCRAM-SHA-256", "SCRAM-SHA-1"),
                String.join("$", parts[0], "4095", parts[2], parts[3], parts[4]),
                String.join("$", parts[0], "+4096", parts[2], parts[3], parts[4]),
                String.join("$", parts[0], "99999999999", parts[2], parts[3], parts[4]),
                String.join("$", parts[0], parts[1], parts[2] + "!", parts[3], parts[4]),
                String.join("$", parts[0], parts[1], parts[2], parts[3].substring(0, 40), parts[4]),
                String.join("$", parts[0], parts[1], parts[2], parts[3], b64(new byte[31])),
                String.join("$", parts[0], parts[1], b64(new byte[15]), parts[3], parts[4]));
        for (String text : bad) {
            Throwable thrown = catchThrowable(() -> Credential.decode(text));
            assertThat(thrown).as(text).isInstanceOf(IllegalArgumentException.class);
            assertThat(thrown.getMessage()).doesNotContain(parts[2], parts[3], parts[4], "hunter2");
        }
        assertThatThrownBy(() -> Credential.decode(String.join("$", parts[0], "4095", parts[2], parts[3], parts[4])))
                .hasMessageContaining("iteration count");
        assertThatThrownBy(() -> Credential.decode(String.join("$", parts[0], parts[1], parts[2], parts[3], "AA!")))
                .hasMessageContaining("ServerKey").hasMessageContaining("base64");
        assertThatThrownBy(() -> Credential.decode(String.join("$", parts[0], parts[1], parts[2], parts[3], b64(new byte[31]))))
                .hasMessageContaining("ServerKey of 31 bytes");
    }

    @Test
    void aCredentialRefusesBadParts() {
        byte[] key = new byte[32];
        assertThatThrownBy(() -> new Credential(new byte[15], 4096, key, key)).hasMessageContaining("salt of 15 bytes");
        assertThatThrownBy(() -> new Credential(new byte[65], 4096, key, key)).hasMessageContaining("salt of 65 bytes");
        assertThatThrownBy(() -> new Credential(new byte[16], 4095, key, key)).hasMessageContaining("4095 iterations");
        assertThatThrownBy(() -> new Credential(new byte[16], 1_000_001, key, key)).hasMessageContaining("1000001 iterations");
        assertThatThrownBy(() -> new Credential(new byte[16], 4096, new byte[31], key)).hasMessageContaining("StoredKey");
        assertThatThrownBy(() -> Credential.of("pw".toCharArray(), new byte[8], 4096))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(new Credential(new byte[64], 1_000_000, key, key).iterations()).isEqualTo(1_000_000);
    }

    @Test
    void aCredentialsTextShowsNoKeyMaterial() {
        assertThat(ALICE.toString()).isEqualTo("Credential[SCRAM-SHA-256, iterations=4096]");
    }

    @Test
    void aCredentialMatchesItsPasswordOnly() {
        assertThat(ALICE.matches(PASSWORD.toCharArray())).isTrue();
        assertThat(ALICE.matches((PASSWORD + " ").toCharArray())).isFalse();
        assertThat(ALICE.matches(new char[0])).isFalse();
        Credential empty = Credential.of(new char[0], new byte[16], 4096);
        assertThat(empty.matches(new char[0])).isTrue();
        assertThat(empty.matches("x".toCharArray())).isFalse();
    }

    // ---- helpers ----

    private static void exchange(Client client, Server server) {
        client.verify(server.finish(client.finish(server.first(client.first()))));
    }

    /** The base64 salt of the server-first-message for {@code user}. */
    private static String saltOf(String user, Server server) {
        String serverFirst = text(server.first(bytes("n,,n=" + user + ",r=abc")));
        return serverFirst.substring(serverFirst.indexOf(",s=") + 3, serverFirst.indexOf(",i="));
    }

    /** A client that sent its client-final-message for the RFC's vector and awaits the server's. */
    private static Client finishedClient() {
        Client client = Client.withNonce(RFC_USER, RFC_PASSWORD.toCharArray(), RFC_CLIENT_NONCE);
        client.first();
        client.finish(bytes(RFC_SERVER_FIRST));
        return client;
    }

    private static void assertClientFinishRefuses(String serverFirst, String why) {
        Client client = Client.withNonce(RFC_USER, RFC_PASSWORD.toCharArray(), RFC_CLIENT_NONCE);
        client.first();
        assertThatThrownBy(() -> client.finish(bytes(serverFirst))).as(serverFirst)
                .isInstanceOf(AuthenticationException.class).hasMessageContaining(why);
    }

    private static void assertClientVerifyRefuses(String serverFinal, String why) {
        Client client = finishedClient();
        assertThatThrownBy(() -> client.verify(bytes(serverFinal))).as(serverFinal)
                .isInstanceOf(AuthenticationException.class).hasMessageContaining(why);
    }

    private static void assertServerFirstRefuses(String clientFirst, String why) {
        assertServerFirstRefuses(bytes(clientFirst), why);
    }

    private static void assertServerFirstRefuses(byte[] clientFirst, String why) {
        Server server = new Server(USERS::get, SECRET, RANDOM);
        assertThatThrownBy(() -> server.first(clientFirst)).as(text(clientFirst))
                .isInstanceOf(AuthenticationException.class).hasMessageContaining(why);
    }

    private static void assertServerFinishRefuses(String clientFinal, String why) {
        Server server = Server.withNonce(USERS::get, SECRET, RANDOM, RFC_SERVER_NONCE);
        server.first(bytes("n,,n=alice,r=abc"));
        assertThatThrownBy(() -> server.finish(bytes(clientFinal))).as(clientFinal)
                .isInstanceOf(AuthenticationException.class).hasMessageContaining(why);
    }

    /** Runs {@code call}; it may succeed, or fail with an AuthenticationException, whose message it returns. */
    private static String expectOnlyAuthenticationFailure(Runnable call, byte[] input) {
        try {
            call.run();
            return null;
        } catch (AuthenticationException e) {
            assertThat(e.getMessage()).isNotBlank();
            return e.getMessage();
        } catch (RuntimeException e) {
            throw new AssertionError("input " + Arrays.toString(input) + " threw " + e, e);
        }
    }

    private static byte[] randomMessage(Random random) {
        byte[] bytes = new byte[random.nextInt(200)];
        if (random.nextBoolean()) {
            random.nextBytes(bytes);
        } else { // printable, with the message's punctuation more likely
            String alphabet = "nyprsicvpema,,,===abcXYZ0123456789+/";
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = (byte) alphabet.charAt(random.nextInt(alphabet.length()));
            }
        }
        return bytes;
    }

    private static byte[] mutate(byte[] valid, Random random) {
        byte[] interesting = {',', '=', '\0', 'a', 'r', 'p', '0', '9', (byte) 0xc3, (byte) 0xff, ' '};
        List<Byte> bytes = new ArrayList<>();
        for (byte b : valid) {
            bytes.add(b);
        }
        int mutations = 1 + random.nextInt(3);
        for (int m = 0; m < mutations && !bytes.isEmpty(); m++) {
            int at = random.nextInt(bytes.size());
            switch (random.nextInt(5)) {
                case 0 -> bytes.set(at, (byte) (bytes.get(at) ^ (1 << random.nextInt(8))));
                case 1 -> bytes.set(at, interesting[random.nextInt(interesting.length)]);
                case 2 -> bytes.remove(at);
                case 3 -> bytes.add(at, interesting[random.nextInt(interesting.length)]);
                default -> bytes.subList(at, bytes.size()).clear();
            }
        }
        byte[] result = new byte[bytes.size()];
        for (int i = 0; i < result.length; i++) {
            result[i] = bytes.get(i);
        }
        return result;
    }

    /** RFC 5802's Hi(): PBKDF2 with HMAC-SHA-256 and one block, written out. */
    private static byte[] hi(byte[] password, byte[] salt, int iterations) throws GeneralSecurityException {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(password, "HmacSHA256"));
        mac.update(salt);
        byte[] u = mac.doFinal(new byte[] {0, 0, 0, 1});
        byte[] result = u.clone();
        for (int i = 1; i < iterations; i++) {
            u = mac.doFinal(u);
            for (int j = 0; j < result.length; j++) {
                result[j] ^= u[j];
            }
        }
        return result;
    }

    private static byte[] hmac(byte[] key, byte[] data) throws GeneralSecurityException {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        return mac.doFinal(data);
    }

    private static byte[] sha256(byte[] data) throws GeneralSecurityException {
        return MessageDigest.getInstance("SHA-256").digest(data);
    }

    private static byte[] xor(byte[] a, byte[] b) {
        byte[] result = new byte[a.length];
        for (int i = 0; i < a.length; i++) {
            result[i] = (byte) (a[i] ^ b[i]);
        }
        return result;
    }

    private static String b64(byte[] bytes) {
        return Base64.getEncoder().encodeToString(bytes);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(UTF_8);
    }

    private static String text(byte[] bytes) {
        return new String(bytes, UTF_8);
    }
}
