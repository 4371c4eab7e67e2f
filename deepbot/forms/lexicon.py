"""The words forms are written with, in the languages forms are often written in, each
read as its English word before texts are compared.

A domain file is usually written in one language, and a page in another: "Senha",
"Mot de passe", "Пароль" and "Password" label the same box. The domain's aliases may name
each of them, and then these words change nothing. When they do not, a form in Portuguese
still reads "password" where an alias says "password". Only the vocabulary of forms
themselves is here (an account, a message, a search, a sign-up), a few words a concept,
never a page's content: what a box is, not what is typed into it.

English said otherwise is read one way too: "Email address" is "email", "Stay signed in"
and "Keep me logged in" are "remember me", "Sign in" and "Log on" are "login".

Each entry is a phrase as people write it; accents and case do not matter (they are folded
as every text is). A phrase is read as a whole word or words of a text; in a script
without spaces (Japanese, Chinese) it is read wherever it appears.
"""

from __future__ import annotations

# English word (as the domains' aliases say it) → the ways forms say it elsewhere.
FORM_WORDS: dict[str, tuple[str, ...]] = {
    "password": (
        "senha", "contraseña", "contrasena", "mot de passe", "passwort", "kennwort", "пароль", "пароля",
        "парола",
        "adgangskode", "wachtwoord", "hasło", "haslo", "hasła", "hasla", "jelszó", "jelszo", "jelszót",
        "lösenord", "lösenordet", "passord",
        "salasana", "heslo", "şifre", "sifre", "slaptažodis", "contrasinal", "パスワード", "密码", "密碼",
        "parola", "parolă", "şifremi", "şifrenizi", "lozinka", "лозинка", "κωδικός", "κωδικός πρόσβασης",
        "mật khẩu", "kata sandi",
        "비밀번호", "암호", "كلمة المرور", "كلمة السر", "סיסמה", "סיסמא", "รหัสผ่าน",
    ),
    "username": (
        "nome de usuário", "nome de usuario", "nome de utilizador", "nombre de usuario", "nom d'utilisateur",
        "benutzername", "имя пользователя", "brugernavn", "gebruikersnaam", "nazwa użytkownika",
        "felhasználónév", "användarnamn", "brukernavn", "käyttäjätunnus", "uživatelské jméno",
        "kullanıcı adı", "nome utente", "vartotojo vardas", "потребителско име", "ユーザー名", "用户名",
        "логин", "identifiant", "pseudo",
        "nume de utilizator", "korisničko ime", "ім'я користувача", "όνομα χρήστη", "tên đăng nhập",
        "tên người dùng", "nama pengguna", "아이디", "사용자 이름", "اسم المستخدم", "שם משתמש", "ชื่อผู้ใช้",
        # and English said otherwise: "User", "User ID" and "Login name" ask for a user name
        "user", "user name", "user-name", "user id", "userid", "login name", "login id",
    ),
    "email": (
        # an address is what an e-mail box holds: "Email address" says no more than "Email"
        "email address", "e-mail address", "e mail address", "mail address", "email addr", "e-mail addr",
        "e-mail", "e mail", "correo electrónico", "correo", "courriel", "adresse e-mail", "adresse email",
        "e-mail-adresse", "endereço de email", "endereço de e-mail", "indirizzo email", "indirizzo e-mail",
        "электронная почта", "e-mail cím", "adres e-mail", "emailadres", "e-mailadres", "メールアドレス",
        "邮箱", "电子邮件",
        "електронна пошта", "adresa de email", "adresa de e-mail", "e-posta", "e-posta adresi",
        "e-posta adresiniz", "e-posta adresinizi", "e-postadress", "e-postadresse",
        "alamat email", "alamat e-mail", "địa chỉ email", "이메일", "이메일 주소", "البريد الإلكتروني",
        "البريد الالكتروني", "דואר אלקטרוני", "אימייל", "อีเมล",
    ),
    "name": (
        "nome", "nombre", "nom", "имя", "navn", "naam", "imię", "név", "jméno", "vardas", "名前", "姓名",
        "nume", "ime", "ім'я", "όνομα", "isim", "adınız", "ad soyad", "họ tên", "họ và tên", "nama",
        "이름", "성명", "الاسم", "שם", "ชื่อ", "namn", "фио",
        # a whole name is a name: "Full name" asks what "Name" does
        "full name", "your full name", "nom complet", "nombre completo", "nome completo",
        "vollständiger name", "volledige naam", "fullständigt namn", "fulde navn", "полное имя",
    ),
    "first name": ("prénom", "prenom", "vorname", "primeiro nome", "nome proprio", "keresztnév",
                   "křestní jméno", "fornavn", "voornaam", "förnamn"),
    "last name": (
        "nom de famille", "nachname", "apellido", "apellidos", "sobrenome", "apelido", "cognome", "фамилия",
        "achternaam", "efternavn", "efternamn", "etternavn", "nazwisko", "vezetéknév", "příjmení", "pavardė",
    ),
    "message": (
        "mensagem", "mensaje", "nachricht", "messaggio", "сообщение", "besked", "bericht", "wiadomość",
        "üzenet", "zpráva", "zprávu", "žinutė", "meddelande", "viesti", "メッセージ",
        "mesaj", "mesajınız", "poruka", "повідомлення", "μήνυμα", "tin nhắn", "pesan", "메시지",
        "رسالة", "الرسالة", "הודעה", "ข้อความ",
    ),
    "comment": ("commentaire", "commentaires", "kommentar", "kommentare", "comentario", "comentarios",
                "comentário", "comentários", "commento", "commenti", "комментарий", "komentarz",
                "hozzászólás"),
    "question": ("pregunta", "frage", "domanda", "pergunta", "вопрос", "vraag", "spørgsmål", "fråga",
                 "pytanie", "kérdés", "dotaz"),
    "subject": ("assunto", "asunto", "sujet", "objet", "betreff", "oggetto", "тема", "emne", "ämne",
                "onderwerp", "temat", "tema", "téma", "aihe",
                "tárgy", "předmět", "subiect", "konu", "θέμα", "tiêu đề", "chủ đề", "perihal", "subjek",
                "제목",
                "الموضوع", "נושא", "หัวข้อ"),
    "phone": ("telefone", "teléfono", "téléphone", "telefon", "telefono", "телефон", "telefoon", "電話",
              "τηλέφωνο", "điện thoại", "telepon", "전화번호", "전화", "الهاتف", "رقم الهاتف", "טלפון",
              "โทรศัพท์", "telefonnummer", "telefoonnummer", "numer telefonu", "номер телефона",
              "número de teléfono", "numéro de téléphone", "numero di telefono", "número de telefone",
              "handy", "móvil", "celular", "cellulare", "мобильный телефон", "puhelin",
              # and English said otherwise
              "phone number", "telephone", "telephone number", "mobile", "mobile number", "mobile phone",
              "cell phone", "cell"),
    "website": ("site web", "webseite", "sitio web", "sito web", "сайт", "hjemmeside", "strona www",
                "weboldal", "web site", "homepage", "webpage"),
    "search": (
        "buscar", "busca", "búsqueda", "pesquisar", "pesquisa", "recherche", "rechercher", "suche", "suchen",
        "cerca", "ricerca", "cercare", "zoeken", "søg", "søk", "sök", "szukaj", "hledat", "поиск", "найти",
        "keresés", "paieška", "ieškoti", "haku", "検索", "搜索",
        "ara", "arama", "căutare", "caută", "cauta", "traži", "pretraga", "pretraži", "пошук", "знайти",
        "αναζήτηση", "tìm kiếm", "cari", "pencarian", "검색", "بحث", "البحث", "ابحث", "חיפוש", "חפש",
        "ค้นหา", "искать",
        # what a search box asks, as English "What are you looking for?"
        "what are you looking for", "que recherchez-vous", "que cherchez-vous", "qué estás buscando",
        "qué buscas", "o que você procura", "o que procura", "o que está procurando", "cosa stai cercando",
        "cosa cerchi", "wonach suchen sie", "was suchen sie", "wat zoek je", "waar ben je naar op zoek",
        "что вы ищете", "что ищете", "czego szukasz", "co hledáte", "mit keres", "mit keresel",
        "vad letar du efter", "hvad søger du", "hva leter du etter", "bạn đang tìm gì",
    ),
    # the words typed in a search box ("parola chiave" is no password, as "parola" alone is in
    # Romanian and Turkish)
    "keywords": (
        "suchbegriff", "suchbegriffe", "stichwort", "stichwörter", "schlagwort", "palavra-chave",
        "palavras-chave", "palabra clave", "palabras clave", "mot-clé", "mot clé", "mots-clés", "mots clés",
        "parola chiave", "parole chiave", "ключевые слова", "ключевое слово", "trefwoord", "trefwoorden",
        "zoekterm", "zoekwoord", "søgeord", "sökord", "søkeord", "hakusana", "klíčová slova", "klíčové slovo",
        "hledaný výraz", "kulcsszó", "keresett kifejezés", "słowa kluczowe", "słowo kluczowe",
        "szukana fraza", "anahtar kelime", "từ khóa", "kata kunci", "キーワード", "关键词", "關鍵字",
        "키워드",
    ),
    # an account made for a new user, said as people say it
    "create account": ("create user", "create a user", "create new user", "create a new user",
                       "create a new account", "create new account", "create a new user account",
                       "create your account", "create my account", "open an account",
                       "buat akun", "hesap oluştur", "creează cont", "створити обліковий запис",
                       "tạo tài khoản", "계정 만들기", "إنشاء حساب", "צור חשבון"),
    "register": (
        "registration",  # English nouns of purposes read as their verbs, as the others' do
        "registrieren", "inscription", "s'inscrire", "inscrivez-vous", "registrarse", "regístrate",
        "cadastrar", "cadastre-se", "cadastro", "registrati", "registrazione", "registreren", "registrer",
        "регистрация", "зарегистрироваться", "zarejestruj", "rejestracja", "regisztráció", "registruotis",
        "registrace", "登録", "注册",
        "kayıt ol", "üye ol", "înregistrare", "înregistrează-te", "registracija", "registriraj se",
        "реєстрація", "εγγραφή", "đăng ký", "daftar", "회원가입", "가입", "التسجيل", "הרשמה", "สมัครสมาชิก",
    ),
    "login": (
        # the English ways of saying it: "Sign in", "Log on" and "Login" are one button
        "sign in", "sign-in", "signin", "log on", "log-on", "logon", "sign on", "signon", "logged in",
        "signed in",
        "connexion", "se connecter", "anmelden", "einloggen", "iniciar sesión", "acceder", "accedi",
        "войти", "вход", "inloggen", "logga in", "zaloguj", "belépés", "bejelentkezés", "prisijungti",
        "přihlásit", "ログイン", "登录",
        "entrar", "ingresar", "iniciar sessão", "giriş", "giriş yap", "oturum aç", "autentificare",
        "conectare", "prijava", "prijavi se", "увійти", "вхід", "σύνδεση", "είσοδος", "đăng nhập", "masuk",
        "로그인", "تسجيل الدخول", "دخول", "התחברות", "כניסה", "เข้าสู่ระบบ",
    ),
    "logout": ("sign out", "sign-out", "signout", "log off", "log-off", "logoff", "sign off"),
    "forgot": (
        "forgotten",
        "oublié", "oublie", "vergessen", "olvidé", "olvidaste", "olvidada", "esqueci", "esqueceu",
        "dimenticata", "dimenticato", "забыли", "elfelejtett", "elfelejtette", "zapomniałeś", "zapomenuté",
        "glemt", "vergeten", "glömt", "unohtunut", "忘れた", "忘れ", "忘记",
        "unuttum", "unuttunuz", "uitat", "ai uitat", "zaboravili", "zaboravljena", "забули", "ξεχάσατε",
        "quên", "잊으셨나요", "분실", "نسيت", "שכחת", "ลืม",
        "hai dimenticato", "nie pamiętasz", "nie pamietasz",
    ),
    "lost": ("perdu", "perdue", "perdido", "perdida", "verloren"),
    # Indonesian "lupa" alone is also the magnifier of a Spanish search button
    "forgot password": ("lupa kata sandi", "lupa sandi", "lupa password", "비밀번호 찾기"),
    "new": ("nouveau", "nouvelle", "neu", "neues", "nuevo", "nueva", "novo", "nova", "nuovo", "nuova",
            "новый", "nieuw", "nieuwe", "nowe", "új", "ny", "nyt", "nytt"),
    # what a recovery form's button asks for, read as English once its words are ("Bestil ny
    # adgangskode" is "request new password"). "Send" alone is every form's button: not here.
    "request": ("bestil", "anfordern", "solicitar", "demander", "richiedi", "aanvragen", "запросить"),
    # WordPress's "Get New Password", as its translations word it ("Obter nova senha")
    "get": ("obter", "obtenir", "obtener", "ottieni"),
    "reset password": ("request a new password", "request new password", "e-mail new password",
                       "email new password", "send new password", "send me a new password",
                       "get a new password", "get new password", "send me my password",
                       "passwort anfordern", "neues passwort anfordern", "запрос пароля",
                       "envoyez-moi un nouveau mot de passe", "recevoir un nouveau mot de passe"),
    "reset": ("zurücksetzen", "réinitialiser", "reinitialiser", "restablecer", "redefinir", "reimposta",
              "reimpostare", "сбросить", "nulstil", "resetten", "zresetuj", "再設定", "再発行", "重置"),
    "recover": ("recovery",
                "recuperar", "récupérer", "recuperer", "recupera", "recuperare", "wiederherstellen",
                "восстановить", "восстановление", "récupération", "recuperation", "recuperação",
                "recuperación", "recupero", "wiederherstellung", "odzyskiwanie", "gendan"),
    "remember": ("souvenir", "recordar", "recordarme", "lembrar", "lembrar-me", "ricordami",
                 "запомнить", "husk", "onthoud", "zapamiętaj", "zapamatovat"),
    # staying signed in, however a login form words it: one concept, "remember me"
    "remember me": (
        "keep me logged in", "keep me signed in", "stay logged in", "stay signed in", "always stay logged in",
        "auto login", "auto-login", "autologin", "automatic login", "log me in automatically",
        "sign me in automatically", "remember my login", "remember login", "save login", "save my login",
        "eingeloggt bleiben", "angemeldet bleiben", "aangemeld blijven", "ingelogd blijven",
        "forbli pålogget",
        "forbli innlogget", "rester connecté", "se souvenir de moi", "se rappeler de moi",
        "connexion automatique", "connexion auto", "garder ma session active", "riconoscimi automaticamente",
        "mantener la sesión iniciada", "mantenerme conectado", "manter-me conectado", "lembrar de mim",
        "запомнить меня", "nie wylogowuj mnie", "zapamiętaj mnie", "husk mig", "husk meg", "kom ihåg mig",
        "maradjon bejelentkezve", "emlékezz rám", "zůstat přihlášen", "muista minut", "beni hatırla",
        "ține-mă minte", "zapamti me", "запам'ятати мене", "να με θυμάσαι", "ghi nhớ đăng nhập", "ingat saya",
        "로그인 상태 유지", "자동 로그인", "تذكرني", "זכור אותי", "จดจำฉัน",
    ),
    "remind": ("reminder",
               "ricorda", "rappel", "rappeler", "erinnern", "recordatorio", "lembrete", "напомнить",
               "priminti"),
    # an e-mail sign-up is a subscription to e-mails: a newsletter, whatever the site calls it
    "newsletter": ("email signup", "email sign up", "e-mail signup", "e-mail sign up",
                   "email sign-up", "e-mail sign-up", "email subscription", "e-mail subscription",
                   "boletín", "nieuwsbrief", "рассылка", "hírlevél", "nyhedsbrev", "nyhetsbrev", "biuletyn",
                   "ニュースレター", "bülten", "e-bülten", "buletin informativ", "розсилка",
                   "ενημερωτικό δελτίο", "bản tin", "뉴스레터", "النشرة الإخبارية", "ניוזלטר", "จดหมายข่าว"),
    "subscribe": (
        "abonnieren", "s'abonner", "abonnez-vous", "suscribirse", "suscríbete", "assinar", "assine",
        "inscreva-se", "iscriviti", "подписаться", "tilmeld", "zapisz się", "feliratkozás", "prenumerera",
        "abone ol", "abonează-te", "abonare", "pretplati se", "підписатися", "εγγραφείτε", "berlangganan",
        "구독", "اشترك", "הירשם",
    ),
    "contact": ("kontakt", "contactez", "contacto", "contato", "contatti", "связаться", "kapcsolat",
                "kontaktas", "お問い合わせ", "iletişim", "contactați-ne", "контакти", "επικοινωνία",
                "liên hệ",
                "hubungi kami", "kontak", "문의", "اتصل بنا", "צור קשר", "ติดต่อเรา"),
    "terms": ("conditions générales", "agb", "términos", "termos", "termini", "условия", "vilkår",
              "voorwaarden", "regulamin", "feltételek"),
    "i agree": ("j'accepte", "ich akzeptiere", "acepto", "aceito", "accetto", "согласен", "akkoord",
                "akceptuję", "elfogadom"),
    # Ordering and paging the results: a search's sort box is no filter. Words that begin
    # with "sort" (sortieren, sortowanie, sorteer) need no entry: they read as sorting already.
    "sort": ("order by", "ordenar", "ordenar por", "ordenado por", "ordenação", "ordina per", "ordinamento",
             "trier", "trier par", "trié par", "rendezés", "сортировка", "сортировать", "řazení", "seřadit",
             "lajittele", "sırala", "sıralama", "並び替え", "並べ替え", "排序"),
    # "croissant" alone is also a pastry: only with the word it orders
    "ascending": ("aufsteigend", "ordre croissant", "prix croissant", "ascendente", "crescente",
                  "по возрастанию", "oplopend", "rosnąco", "növekvő", "vzestupně", "artan", "stigende",
                  "昇順", "升序"),
    "descending": ("absteigend", "décroissant", "descendente", "decrescente", "по убыванию", "aflopend",
                   "malejąco", "csökkenő", "sestupně", "azalan", "faldende", "synkende", "降順", "降序"),
    "per page": ("pro seite", "par page", "por página", "per pagina", "на странице", "na stronę",
                 "na stronie", "oldalanként", "na stránku", "ページあたり", "每页"),
}
