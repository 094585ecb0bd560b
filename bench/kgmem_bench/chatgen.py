"""Template conversations between two people, with answerable and false-premise questions (seeded).

:func:`conversations` writes long chats in the shape of LoCoMo (two speakers, several dated sessions, one
memory record per turn) and asks questions about them. It is training data for a confidence model that has to
tell a question the memory can answer from one whose premise is false. Two kinds of false premise are made in
the way LoCoMo made its adversarial questions, by asking about the wrong person and about something nobody said:

* ``answerable`` (label 1): a question about a topic one speaker talked about, naming that speaker; the gold is
  the turn where they said it;
* ``swapped`` (label 0): the same question, word for word, naming the *other* speaker (attribution swap); the
  gold is the turn the question was made from, so the best turn to retrieve is there but belongs to the wrong
  person;
* ``absent`` (label 0): a question about a topic from the pool that this conversation never touches, naming
  either speaker; no gold.

LoCoMo's adversarial questions are hard because the wrong person has said something close: the listener
answers news in the second person and at length ("Wow, your new hair colour looks amazing! What made you choose
that shade?") and relates it to themselves ("I keep meaning to try that"), and every turn is long. So here the
listener does too (:data:`LONG_REACTIONS`, :data:`RELATE`), and statements often go on (:data:`TAILS`), so that
neither a turn's length nor the named person's words on the theme give the answer away.

Every sentence here (the topic table, the filler lines, the name lists) was written for kgmem: none of it is
taken from LoCoMo or any other dataset. It ships with kgmem under the Apache-2.0 licence, so generated data can
be kept and shared freely. Only the construction follows LoCoMo. To keep word overlap from giving the answer
away, questions paraphrase the statement, reactions from the other speaker repeat the topic word ("A puppy!
What breed?") and name the speaker, and later sessions ask about earlier news. Topics are grouped (``pet``,
``work``, ...); a conversation uses at most one topic per group and takes its absent topics from groups it does
not use, so no absent question is answered by something close to it.

Everything comes from ``random.Random(seed)``: the same ``(n, seed)`` gives the same conversations.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

# --------------------------------------------------------------------------- topics
#
# One topic per block. Header: ``key | answer type | mood | word | echo``; the key's first part (before the
# dot) is its group. The mood (+ good news, - bad news, 0 neutral) chooses the listener's reaction; ``word`` is
# how the other speaker refers to it later ("Any news on the puppy front?"); ``echo`` is the listener's
# reaction that repeats the topic word. ``>`` lines are what the speaker says (first person, one is chosen);
# ``?`` lines are questions about the speaker, ``{p}`` standing for their name. Slots: {pet} {kid} {friend}
# {city} {ago} {n} (a number word) and the capitalised {Ago} {N}; a question uses only slots that every
# statement of its topic has, and the question takes the same values as the statement.

_TABLE = """
pet.puppy | what | + | puppy | A puppy! What breed?
  > Big news, we adopted a golden retriever pup last week! We called him {pet}.
  > New family member alert: a puppy named {pet}. He has already chewed through one of my shoes.
  ? What did {p} name the new puppy?
  ? What is the name of {p}'s dog?
pet.cat | when | + | cat | Aww, a cat! Is she settling in?
  > We finally brought home a rescue cat {ago}. She hid under the bed for two whole days.
  > I adopted a tabby from the shelter {ago}, and she already runs the place.
  ? When did {p} adopt a cat?
  ? When did {p} bring home the rescue cat?
pet.vet | why | - | vet visit | The vet?! Is he ok?
  > Spent the whole morning at the vet because {pet} swallowed a sock. He's fine now, thank god.
  > Had to rush {pet} to the vet, the silly dog ate a sock off the laundry pile.
  ? Why did {p} take the dog to the vet?
  ? Why did {p}'s dog {pet} need to see a vet?
pet.fish | how_many | + | aquarium | A fish tank! Is it hard to keep clean?
  > I set up an aquarium in the living room, there are {n} neon tetras in it now.
  > My new obsession is the fish tank. {N} little tetras so far and I keep wanting more.
  ? How many fish does {p} have in the aquarium?
  ? How many tetras are in {p}'s fish tank?
pet.horse | where | + | riding lessons | Horses are huge up close! Were you nervous?
  > I've started riding lessons at a stable just outside {city}, every other Sunday.
  > Every other weekend I drive out to a stable near {city} for riding lessons. Best part of my month.
  ? Where does {p} take riding lessons?
  ? Where is the stable where {p} rides horses?
run.marathon | how_many | + | marathon training | Marathons are wild. How are your legs?
  > That was marathon number {n} for me on Sunday, and honestly the hardest one yet.
  > Finished another marathon! That makes {n} now. I can barely walk down the stairs.
  ? How many marathons has {p} run?
  ? How many marathons has {p} completed so far?
run.fivek | when | + | running | A 5K! Did you stop at all?
  > I ran my first 5K {ago}! Didn't walk once.
  > So {ago} I did my first ever 5K, a charity race along the river. Terrible time, but I finished.
  ? When did {p} run a 5K?
  ? When did {p} do the first 5K race?
run.club | who | + | running club | A running club sounds so social!
  > My neighbour {friend} got me into an early-morning running club, we meet at six.
  > I joined a running club because of {friend} from next door. Six a.m. starts, can you imagine.
  ? Who got {p} into the running club?
  ? Who introduced {p} to the morning running club?
fit.gym | why | 0 | gym routine | The gym, huh? Do you actually like it?
  > I started going to the gym three times a week because my doctor said my back needed it.
  > Signed up for a gym membership, mostly for my back pain. The doctor insisted.
  ? Why did {p} start going to the gym?
  ? Why did {p} sign up for a gym?
fit.yoga | where | + | yoga | Yoga! I keep saying I'll try it.
  > I've been doing yoga at a tiny studio above a bakery downtown. The whole room smells like bread.
  > Found a yoga class in the old library building by the park, every Thursday evening.
  ? Where does {p} take yoga classes?
  ? Where does {p} go to do yoga?
fit.steps | how_many | 0 | step counter | Ha, are you checking the watch right now?
  > My new watch says I walk about {n} thousand steps a day. I thought I'd be higher.
  > Apparently I only average {n} thousand steps a day, the watch keeps shaming me.
  ? How many steps does {p} walk per day?
  ? How many steps a day does {p}'s watch count?
sport.soccer | who | + | soccer team | Soccer! What position do you play?
  > {friend} from work talked me into joining an amateur soccer team. We lost 6-0 on Sunday, lol.
  > I joined a Sunday soccer league with my coworker {friend}. We're terrible, but it's fun.
  ? Who talked {p} into playing soccer?
  ? Who did {p} join the soccer league with?
sport.climbing | what | + | climbing | Climbing looks terrifying. How are your hands?
  > I got really into bouldering and finally sent a V4 this week!
  > Climbing update: I topped my first V4 problem at the gym yesterday, my forearms are dead.
  ? What grade did {p} climb at bouldering?
  ? What bouldering level did {p} reach?
sport.tennis | yesno | + | tennis | A tennis champion! Was the final close?
  > I won the club tennis tournament! Just a small local one, but still.
  > Guess who won the tennis tournament at the club this weekend? Me!!
  ? Did {p} win a tennis tournament?
  ? Has {p} won a tennis tournament at the club?
sport.swim | why | 0 | swimming | Swimming before work? That's dedication.
  > I switched to swimming laps in the morning because running was wrecking my knees.
  > My knees couldn't take the running anymore, so now I swim at the public pool before work.
  ? Why did {p} switch to swimming?
  ? Why did {p} start swimming laps?
sport.ski | where | + | ski trip | Skiing! Did you fall a lot?
  > Just back from a ski weekend in the mountains near {city}. I only fell about twenty times.
  > We went skiing near {city}, my first time on a real slope. I spent most of it sitting in the snow.
  ? Where did {p} go skiing?
  ? Where was {p}'s ski weekend?
out.hike | where | + | hiking | A hike! Did you take pictures?
  > Went hiking in the hills outside {city} last month, the views were unreal.
  > Last month we did a twelve-mile hike near {city} and I could barely walk the next day.
  ? Where did {p} go hiking?
  ? Where did {p} hike last month?
out.camping | who | + | camping trip | Camping! Did it rain on you?
  > Went camping by a lake with my cousin {friend}. So many stars, I didn't want to leave.
  > My cousin {friend} and I finally did the camping trip we talked about for years. Lake, tent, bad coffee.
  ? Who did {p} go camping with?
  ? Who went on the lake camping trip with {p}?
out.kayak | when | + | kayaking | Kayaking! Was the water cold?
  > I tried kayaking for the first time {ago}, and I only fell in once.
  > {Ago} I rented a kayak on the bay. First time ever, and I stayed mostly dry!
  ? When did {p} try kayaking?
  ? When did {p} first go kayaking?
out.birds | what | + | birdwatching | Birdwatching, I love that. Do you have binoculars?
  > I've gotten into birdwatching. Saw a great blue heron at the marsh, my favourite so far.
  > Best sighting of the year: a great blue heron standing in the marsh like a statue.
  ? What bird did {p} see at the marsh?
  ? What is {p}'s favourite bird sighting so far?
out.fishing | how_many | + | fishing | Fishing takes so much patience!
  > Went fishing with my uncle at dawn and caught {n} trout, all released.
  > {N} trout in one morning! I've never caught that many. We let them all go.
  ? How many trout did {p} catch?
  ? How many fish did {p} catch on the fishing trip?
travel.city | where | + | trip | Ooh, a trip! How was the flight?
  > Just got back from a week in {city}, the food was incredible.
  > We spent our anniversary week in {city}, walked everywhere and ate way too much.
  ? Where did {p} travel for a week?
  ? Which city did {p} visit recently?
travel.passport | why | - | passport | Passport stress is the worst!
  > I had to renew my passport in a total rush because it expired a week before our trip.
  > Spent the morning at the passport office. Mine expired right before the trip, of course.
  ? Why did {p} have to renew the passport in a hurry?
  ? Why did {p} go to the passport office?
travel.roadtrip | how_many | + | road trip | A road trip! Who did the driving?
  > Road trip done! We drove through {n} states in ten days.
  > Ten days, {n} states, one very tired car. The road trip was everything.
  ? How many states did {p} drive through on the road trip?
  ? How many states did {p}'s road trip cover?
travel.solo | when | + | solo trip | Solo travel is so brave!
  > I did my first solo trip {ago}, four days in {city} all by myself.
  > {Ago} I went to {city} on my own. First solo trip ever, and I loved it.
  ? When did {p} take a solo trip?
  ? When did {p} travel alone for the first time?
travel.flight | what | - | flight | Airports are the worst. Did you get home ok?
  > Our flight got cancelled and we spent the night sleeping on airport chairs.
  > The airline cancelled our flight, so we slept on the floor by gate twelve. Never again.
  ? What happened to {p}'s flight?
  ? What went wrong with {p}'s flight?
work.promo | what | + | promotion | A promotion! Drinks are on you.
  > I got promoted! I'm officially a senior designer now.
  > Guess who's the new team lead at work? Me. It still feels weird to say.
  ? What was {p} promoted to?
  ? What new role did {p} get at work?
work.quit | why | 0 | job change | You quit? Wow, that's a big step.
  > I quit my job at the bank. The hours were brutal and I was completely burned out.
  > Handed in my notice at the bank today. I was burned out, and the hours were killing me.
  ? Why did {p} quit the job at the bank?
  ? Why did {p} leave the bank?
work.business | what | + | business | Your own business! That's so exciting.
  > I'm starting my own business, a small bakery that does gluten-free bread.
  > So I finally did it: I registered my own company. It's a mobile bike repair service.
  ? What kind of business did {p} start?
  ? What is {p}'s new business?
work.interview | when | 0 | interview | An interview! How do you think it went?
  > I had my interview at the architecture firm {ago}. Fingers crossed!
  > {Ago} I had the big job interview, the architecture firm downtown. Still waiting to hear.
  ? When did {p} have a job interview?
  ? When was {p}'s interview at the architecture firm?
work.mentor | who | - | mentor | Oh, good mentors are so hard to replace.
  > My mentor at work, {friend}, is retiring next month and I'm kind of heartbroken.
  > {friend} is retiring. The person who trained me on my first day! I don't know what I'll do.
  ? Who is {p}'s mentor at work?
  ? Who is retiring from {p}'s workplace?
study.masters | what | + | master's program | A master's! When does it start?
  > I got accepted into a master's program in public health!
  > The letter came: I'm in! Master's in public health, starting in the fall.
  ? What program was {p} accepted into?
  ? What will {p} study in the master's program?
study.driving | yesno | + | driving test | The driving test! Was the examiner strict?
  > I passed my driving test! Third time's the charm.
  > Officially a licensed driver now, I passed the test this morning.
  ? Did {p} pass the driving test?
  ? Has {p} passed a driving test?
study.night | why | 0 | night course | Night classes after work? Respect.
  > I'm taking a night course in accounting because I want to do my own taxes.
  > Signed up for evening accounting classes. I'm tired of paying someone to do my taxes.
  ? Why is {p} taking an accounting course?
  ? Why did {p} sign up for evening accounting classes?
study.thesis | when | + | thesis | The thesis is done?! Celebrate!
  > I handed in my thesis {ago}! Four years of work in one PDF.
  > {Ago} I finally submitted my thesis. I slept for fourteen hours afterwards.
  ? When did {p} submit the thesis?
  ? When did {p} hand in the thesis?
lang.japanese | what | + | language lessons | A new language! Is it hard?
  > I've started learning Japanese, an hour every evening. The kanji are destroying me.
  > New project: learning Japanese. I can order ramen now, that's about it.
  ? What language is {p} learning?
  ? What language has {p} started studying?
lang.exchange | who | + | language exchange | A conversation partner is such a good idea.
  > I meet a conversation partner, {friend}, every Tuesday to practise my Spanish.
  > My Spanish is getting better thanks to {friend}, we do a language exchange over lunch.
  ? Who does {p} practise Spanish with?
  ? Who is {p}'s language exchange partner?
lang.streak | how_many | + | language app | That's some serious commitment!
  > My language app streak just hit {n} hundred days. I've never been this consistent about anything.
  > {N} hundred days in a row on the language app! The little cartoon bird would be proud.
  ? How many days long is {p}'s language app streak?
  ? How many days in a row has {p} used the language app?
fam.baby | what | + | new baby | A new baby in the family! Congratulations!
  > My sister had her baby! We're all obsessed with little {kid}.
  > I'm officially the fun relative now: my sister's baby, {kid}, arrived on Friday.
  ? What did {p}'s sister name her baby?
  ? What is the name of the baby {p}'s sister had?
fam.wedding | where | + | wedding | A wedding! Did you give a speech?
  > My brother got married last weekend, in a barn outside {city}. I cried through the whole thing.
  > The wedding was perfect. My brother and his wife picked an old barn near {city}, fairy lights everywhere.
  ? Where did {p}'s brother get married?
  ? Where was the wedding of {p}'s brother?
fam.kids | how_many | 0 | kids | That sounds like a full house!
  > With all {n} of my kids home for the holidays, the house is pure chaos.
  > {N} kids, one bathroom, two weeks of school break. Pray for me.
  ? How many kids does {p} have?
  ? How many children does {p} have?
fam.grandma | how_many | + | birthday party | That's incredible! What's her secret?
  > We threw my grandma a party for her 90th birthday, and she danced all night.
  > Grandma turned 90 on Saturday! She still beats everyone at cards.
  ? How old did {p}'s grandmother turn?
  ? How old is {p}'s grandma now?
fam.reunion | when | + | family reunion | A reunion! Was it fun or stressful?
  > We had a huge family reunion {ago}. Forty relatives in one backyard.
  > {Ago} the whole family got together for a reunion. I met cousins I didn't know existed.
  ? When did {p} have a family reunion?
  ? When did {p}'s family get together for a reunion?
fam.dad | why | - | dad | That's a big change. How are you all managing?
  > My dad moved in with us because he can't live alone anymore after his fall.
  > Dad fell in the winter, so now he lives with us. It's a lot, but I'd rather have him close.
  ? Why did {p}'s father move in?
  ? Why is {p}'s dad living with {p}?
home.move | when | 0 | move | A move! Do you like the new neighbourhood?
  > We moved to {city} {ago}! Still living out of boxes.
  > {Ago} we finally moved to {city}. I can't find anything, but I love the new place.
  ? When did {p} move to {city}?
  ? When did {p} relocate to {city}?
home.house | what | + | house | A homeowner! That's huge.
  > We bought our first house! It's a little blue bungalow with a porch.
  > Keys in hand! Our first house is a tiny blue bungalow with a front porch.
  ? What kind of house did {p} buy?
  ? What does {p}'s first house look like?
home.reno | how_many | - | renovation | Renovations always take forever, hang in there.
  > We've been redoing the kitchen for {n} weeks now and I'm losing my mind.
  > Week {n} of the kitchen renovation. We're washing dishes in the bathtub.
  ? How many weeks has {p}'s kitchen renovation taken?
  ? How long has {p} been renovating the kitchen?
home.roommate | who | 0 | roommate | A new roommate! Do you get along?
  > My new roommate is a nurse called {friend}, on night shifts, so we barely see each other.
  > {friend} moved into the spare room. Night-shift nurse, quiet, tidy, perfect.
  ? Who is {p}'s new roommate?
  ? Who moved into {p}'s spare room?
health.wrist | what | - | cast | Oh no, a cast?! That sounds hard, are you ok?
  > I slipped on the ice and broke my wrist. Six weeks in a cast.
  > Bad news: broken wrist. I slipped on our icy steps and now I'm typing with one hand.
  ? What injury did {p} get from slipping on ice?
  ? What did {p} break?
health.knee | when | - | knee surgery | Surgery! How's the recovery going?
  > I had knee surgery {ago}. Physio starts next week.
  > {Ago} they operated on my knee. Crutches for a month, apparently.
  ? When did {p} have knee surgery?
  ? When was {p}'s knee operation?
health.coffee | why | 0 | no coffee | No coffee?! How are you surviving?
  > I cut out coffee completely because I wasn't sleeping at all.
  > Day ten without coffee. I had to quit, I was lying awake every night.
  ? Why did {p} give up coffee?
  ? Why did {p} quit drinking coffee?
health.meditate | how_many | + | meditation | That's really impressive. Does it help?
  > I've meditated every morning for {n} months now, it really helps with my anxiety.
  > {N} months of morning meditation and I'm honestly a calmer person.
  ? How many months has {p} been meditating?
  ? For how many months has {p} meditated every morning?
health.allergy | what | - | allergy | Oh no, that's scary! Are you ok now?
  > Turns out I'm allergic to peanuts. Found out the hard way at a work lunch.
  > Ended up in urgent care, apparently I'm allergic to peanuts now. Who develops that as an adult?
  ? What is {p} allergic to?
  ? What food allergy did {p} find out about?
music.guitar | when | + | guitar lessons | Guitar! Can you play a song yet?
  > I started guitar lessons {ago}. My fingertips are so sore.
  > {Ago} I had my first guitar lesson. I can almost play three chords!
  ? When did {p} start guitar lessons?
  ? When did {p} have the first guitar lesson?
music.jazz | who | + | jazz concert | A jazz concert, how fancy! Was it packed?
  > Went to a jazz concert with my college friend {friend}. The saxophone player was unreal.
  > {friend} from college dragged me to a jazz club on Friday, best night in ages.
  ? Who did {p} go to the jazz concert with?
  ? Who took {p} to a jazz club?
music.band | what | + | band | Ha! I love a good band name.
  > My band finally has a name: we're calling ourselves The Paper Lanterns.
  > After months of arguing, the band is officially The Paper Lanterns. Gig posters coming soon!
  ? What is the name of {p}'s band?
  ? What did {p}'s band decide to call themselves?
music.choir | yesno | + | choir | A choir! What kind of songs do you sing?
  > I joined a community choir! We're singing at the town hall in December.
  > Guess who's a choir member now? Tuesday rehearsals, alto section, community choir.
  ? Did {p} join a choir?
  ? Is {p} singing in a community choir?
music.piano | why | + | piano | Piano again! That's lovely.
  > I'm learning piano again because I want to play something at my mom's 60th.
  > Dusted off the old keyboard. I want to surprise my mom with a song at her birthday.
  ? Why is {p} learning piano again?
  ? Why did {p} start practising the piano?
book.club | how_many | + | book club | A book club! Any good picks lately?
  > Our book club read {n} novels this year, mostly mysteries.
  > We counted at book club last night: {n} books this year. Not bad for a group that mostly eats cheese.
  ? How many books did {p}'s book club read this year?
  ? How many novels has {p}'s book club finished this year?
book.novel | what | + | novel | You're writing a novel?! That's amazing.
  > I'm writing a fantasy novel about a lighthouse keeper who can talk to storms.
  > Chapter five done! It's my fantasy book, the one about the lighthouse keeper who talks to storms.
  ? What is {p}'s novel about?
  ? What is the story of the book {p} is writing?
book.shop | where | + | bookshop | Oh, I need the name of that place!
  > I found the best used bookshop, inside an old train station in {city}.
  > There's a secondhand bookshop in a converted train station in {city}. I lost three hours there.
  ? Where did {p} find a used bookshop?
  ? Where is the secondhand bookshop {p} discovered?
book.poem | yesno | + | poem | Published! Can I read it?
  > One of my poems got published in a small literary magazine!
  > A literary magazine accepted my poem. First time anything I wrote is in print.
  ? Did {p} get a poem published?
  ? Has {p} had a poem published in a magazine?
food.sourdough | what | + | sourdough | Homemade bread! Save me a slice.
  > I've been baking sourdough every weekend. My starter is called Gerald.
  > Gerald is doing great. Gerald is my sourdough starter, by the way. Weekend baking is my therapy.
  ? What is the name of {p}'s sourdough starter?
  ? What does {p} call the sourdough starter?
food.veggie | why | 0 | vegetarian | Vegetarian! Do you miss meat?
  > I went vegetarian last month, mostly for the environment.
  > No more meat for me. The climate stuff finally got to me.
  ? Why did {p} go vegetarian?
  ? Why did {p} stop eating meat?
food.dumplings | where | + | dumplings | Dumplings! You have to take me there.
  > We found an amazing dumpling place tucked behind the train station.
  > Best dumplings of my life, from a tiny spot behind the train station. No sign, just a red door.
  ? Where is the dumpling place {p} found?
  ? Where did {p} find amazing dumplings?
food.chili | yesno | + | chili | Second place! What's the secret ingredient?
  > My chili won second place at the neighbourhood cook-off!
  > The neighbourhood cook-off was yesterday and my chili took second place. Robbed, obviously.
  ? Did {p} win a prize at the cook-off?
  ? Did {p}'s chili place at the neighbourhood cook-off?
food.pasta | who | + | pasta class | Fresh pasta! Was it hard?
  > I took a pasta-making class taught by an Italian grandmother named Rosa. She yelled at my dough.
  > Rosa, the lady who teaches the pasta class, says my ravioli have potential.
  ? Who taught the pasta class {p} took?
  ? Who teaches {p}'s pasta-making class?
art.pottery | what | + | pottery class | Pottery! Did you keep it?
  > I took a pottery class and made a wonky blue mug. I love it so much.
  > My first pottery piece came out of the kiln: a lopsided blue mug. It leaks a little.
  ? What did {p} make in pottery class?
  ? What was {p}'s first pottery piece?
art.paint | where | + | paintings | Your paintings in public! So proud of you.
  > Two of my paintings are hanging in a café on Main Street this month!
  > The café on Main Street is showing my paintings until the end of the month. Two of them!
  ? Where are {p}'s paintings displayed?
  ? Where can people see {p}'s paintings this month?
art.knit | how_many | + | knitting | You're so productive! Can I get one?
  > I've knitted {n} scarves this winter. Everyone is getting one for the holidays.
  > Scarf count for the season: {n}. My hands hurt but I'm not stopping.
  ? How many scarves has {p} knitted?
  ? How many scarves did {p} knit this winter?
art.camera | what | + | camera | Ooh, a camera! What have you shot so far?
  > I bought my first film camera, an old rangefinder from a flea market.
  > Flea market find of the year: a working rangefinder film camera for twenty bucks.
  ? What camera did {p} buy?
  ? What did {p} find at the flea market?
vol.shelter | why | + | volunteering | That's so kind of you, {other}.
  > I started volunteering at the animal shelter because I wanted my weekends to mean something.
  > Saturdays at the animal shelter now. I needed something useful to do with my weekends.
  ? Why did {p} start volunteering at the shelter?
  ? Why does {p} volunteer at the animal shelter?
vol.foodbank | how_many | + | food bank | Wow, that's a lot of families helped.
  > At the food bank on Saturday we packed {n} hundred boxes. My back hurts but it was worth it.
  > {N} hundred boxes packed at the food bank last week. New record for our team!
  ? How many boxes did {p}'s food bank team pack?
  ? How many food boxes did {p} help pack?
vol.tutor | who | + | tutoring | Tutoring! Is it rewarding?
  > I've started tutoring a kid named {kid} in maths on Wednesdays.
  > My Wednesday tutoring student, {kid}, finally got fractions today. I nearly cried.
  ? Who does {p} tutor?
  ? Who is {p}'s tutoring student?
vol.cleanup | where | + | beach clean-up | A clean-up! That's amazing.
  > I organised a beach clean-up at Pelican Point. We collected forty bags of trash.
  > Forty bags of trash off Pelican Point beach on Sunday! The clean-up went better than I hoped.
  ? Where did {p} organise a clean-up?
  ? Where was the beach clean-up {p} ran?
buy.car | what | + | car | A car! No more buses for you.
  > Finally bought a car! A used red hatchback, but it's mine.
  > Say hello to my first car: a secondhand red hatchback with a dent in the door.
  ? What car did {p} buy?
  ? What kind of car does {p} have now?
buy.ebike | how_many | + | e-bike | An e-bike! Is it fast?
  > I bought an e-bike and I've already ridden {n} hundred kilometres on it.
  > {N} hundred kilometres on the new e-bike since I got it. I don't miss the bus at all.
  ? How many kilometres has {p} ridden on the e-bike?
  ? How far has {p} gone on the new e-bike?
buy.phone | why | - | phone | Oh no! Did you lose all your photos?
  > I had to buy a new phone because I dropped mine in the lake.
  > New phone, not by choice. The old one slipped out of my pocket into the lake.
  ? Why did {p} need a new phone?
  ? Why did {p} have to replace the phone?
buy.couch | when | 0 | couch | Finally! Is it comfy?
  > The new couch was finally delivered {ago}, after two months of waiting.
  > {Ago} the couch finally arrived. Two months late, but it's so comfy.
  ? When did {p}'s new couch arrive?
  ? When was {p}'s couch delivered?
garden.zucchini | what | + | garden | Ha! Garden overflow is a good problem.
  > The garden is going crazy, we've got way more zucchini than we can eat.
  > Does anyone want zucchini? The garden produced about a hundred of them.
  ? What is growing too much in {p}'s garden?
  ? What vegetable does {p} have too much of?
garden.plot | where | + | garden plot | Your own plot! What will you plant?
  > I got a plot at the community garden behind the fire station!
  > Two years on the waiting list, but I have a community garden plot now, the one behind the fire station.
  ? Where is {p}'s community garden plot?
  ? Where did {p} get a garden plot?
garden.tomato | how_many | + | tomatoes | That's a lot of tomatoes!
  > I planted {n} kinds of tomatoes this year. The cherry ones are winning.
  > Tomato experiment: {n} varieties in the yard this summer, and I'll pick a favourite.
  ? How many kinds of tomatoes did {p} plant?
  ? How many tomato varieties is {p} growing?
garden.bees | why | + | beehive | Bees! Aren't you scared of getting stung?
  > We put a beehive in the backyard because I read about bees disappearing.
  > The beehive is up! I kept reading how the bees are in trouble, so I wanted to help.
  ? Why did {p} get a beehive?
  ? Why did {p} set up a beehive?
tech.farmgame | what | + | video game | Ha, what's it called?
  > I've been playing this cozy farming video game every night. I'm completely hooked.
  > My evenings are gone: I'm growing virtual turnips in a little farming game.
  ? What kind of video game has {p} been playing?
  ? What game is {p} hooked on?
tech.app | what | + | app | You built an app! I want to try it.
  > I built my first app! It reminds you when to water your plants.
  > My little plant-watering reminder app is live. Twelve downloads, ha.
  ? What does {p}'s app do?
  ? What app did {p} build?
tech.chess | how_many | + | chess | Chess tournaments! You must be good.
  > I've played in {n} online chess tournaments this month and won one of them!
  > {N} chess tournaments this month, all online. I'm officially obsessed.
  ? How many chess tournaments did {p} play this month?
  ? How many online chess tournaments has {p} entered?
tech.boardgames | who | + | board game night | Board game night sounds so fun!
  > We have a board game night every Friday, hosted by my neighbour {friend}.
  > Fridays are board game nights at {friend}'s place next door. Last week it went until 2 a.m.
  ? Who hosts {p}'s board game night?
  ? Whose place does {p} go to for board games?
social.surprise | when | + | surprise party | A surprise party! Did she suspect anything?
  > I threw a surprise party for my best friend {ago}. She cried!
  > {Ago} we pulled off the surprise party for my best friend. She had no idea.
  ? When did {p} throw a surprise party?
  ? When did {p} organise a surprise party for a friend?
social.lantern | where | + | lantern festival | Lanterns! That sounds magical.
  > We went to a lantern festival at the riverside park. So beautiful.
  > Thousands of paper lanterns at the riverside park last night. Best festival I've been to.
  ? Where did {p} go to the lantern festival?
  ? Where was the lantern festival {p} went to?
social.speech | why | 0 | speech | A speech! Are you nervous?
  > I'm giving a speech at my friend's wedding because her dad can't travel. No pressure, right?
  > Her father can't fly, so I'm the one giving the wedding speech for my best friend. Terrifying.
  ? Why is {p} giving the wedding speech?
  ? Why was {p} asked to give a speech at the wedding?
film.short | what | + | short film | A film festival! That's huge.
  > My short film got into a student festival! It's about my grandfather's bakery.
  > The student festival picked my short film, the one about my grandpa's old bakery.
  ? What is {p}'s short film about?
  ? What is the subject of {p}'s short film?
film.binge | how_many | 0 | baking show | Ha, no judgement here.
  > I binged {n} seasons of a baking show this weekend. No regrets.
  > Watched {n} seasons of that baking competition in two days. I should probably go outside.
  ? How many seasons did {p} binge?
  ? How many seasons of the baking show did {p} watch?
film.play | yesno | + | play | A part in a play! Break a leg!
  > I got a part in the community theatre play! Only three lines, but still.
  > The cast list went up and I'm in it! Small part in the community theatre show.
  ? Did {p} get a part in a play?
  ? Is {p} acting in the community theatre play?
money.loans | yesno | + | student loans | Debt free! That calls for a celebration.
  > I paid off my student loans! The last payment went through today.
  > Student loans: gone. Made the final payment this morning and I'm still shaking.
  ? Did {p} pay off the student loans?
  ? Has {p} finished paying off student loans?
hobby.salsa | where | + | salsa classes | Salsa! Show me some moves next time.
  > I've been taking salsa classes at a dance school near the harbour.
  > Tuesday nights I'm at the dance school by the harbour, learning salsa. Two left feet, but improving.
  ? Where does {p} take salsa classes?
  ? Where does {p} learn salsa?
hobby.magic | why | + | card tricks | Card tricks! Do one for me next time.
  > I'm learning card tricks because my nephew thinks I'm boring.
  > My nephew called me boring, so now I practise card tricks every night. Revenge.
  ? Why is {p} learning card tricks?
  ? Why did {p} start practising magic tricks?
hobby.telescope | what | + | telescope | A telescope! Are you going to stay up every night now?
  > I bought a telescope and saw Saturn's rings for the first time!
  > Set up the new telescope on the roof and there they were: Saturn's rings. I actually yelled.
  ? What did {p} see through the telescope?
  ? What did {p} spot with the new telescope?
hobby.puzzle | how_many | + | jigsaw puzzle | That's so many pieces!
  > I finished a {n} thousand piece jigsaw puzzle. Took me all month.
  > The {n} thousand piece puzzle is done! It's a map of the world and it took forever.
  ? How many pieces was {p}'s jigsaw puzzle?
  ? How many pieces did the puzzle {p} finished have?
"""

# --------------------------------------------------------------------------- names and slot values

NAMES = (
    "Maya", "Kenji", "Amara", "Lukas", "Sofia", "Rahul", "Ingrid", "Mateo", "Aisha", "Jonas", "Leila", "Diego",
    "Hana", "Tomas", "Nia", "Arjun", "Freya", "Emeka", "Camila", "Yusuf", "Elena", "Kwame", "Mei", "Oskar",
    "Zara", "Pablo", "Anya", "Tariq", "Chloe", "Bao", "Ifeoma", "Rafael", "Saoirse", "Dmitri", "Ximena", "Hamid",
    "Lena", "Priya", "Marcus", "Noor", "Sven", "Aroha", "Tendai", "Valentina", "Ravi", "Keoni", "Fatima", "Gabriel",
)  # fmt: skip
FRIENDS = ("Dana", "Tomasz", "Beatriz", "Olu", "Greta", "Hiro", "Samir", "Malik", "Petra", "Joaquin", "Yara", "Callum")
KIDS = ("Theo", "Lila", "Milo", "Ada", "Rafi", "June", "Ezra", "Nell", "Otto", "Wren", "Kai", "Iris")
PETS = ("Biscuit", "Pepper", "Mochi", "Juniper", "Rocket", "Waffles", "Clementine", "Noodle", "Pickles", "Ziggy")
CITIES = (
    "Denver", "Lisbon", "Kyoto", "Portland", "Edinburgh", "Oaxaca", "Tucson", "Montreal", "Valencia", "Hanoi",
    "Bergen", "Austin", "Cape Town", "Krakow", "Wellington", "Marrakesh",
)  # fmt: skip
AGO = ("yesterday", "last weekend", "last Tuesday", "two weeks ago", "last Friday", "a few days ago", "on Sunday")
NUMBERS = ("two", "three", "four", "five", "six", "seven", "eight", "nine")

# --------------------------------------------------------------------------- filler lines ({other}: the listener)

GREETINGS = (
    "Hey {other}! Long time no talk.",
    "Hi {other}, how's it going?",
    "Morning! Got a minute to catch up?",
    "Hey! How was your week?",
    "{other}! I was just thinking about you.",
)
GREETING_REPLIES = (
    "Hey! So good to hear from you.",
    "Hi {other}! Doing alright, busy as always.",
    "Oh hey! Perfect timing, I'm on a break.",
    "Hi! It's been a crazy week, honestly.",
)
PROMPTS = (
    "What about you, {other}? Anything new?",
    "So what's been going on with you?",
    "Enough about me, how are things on your side?",
    "Anything exciting happening with you, {other}?",
    "Tell me something good, {other}.",
)
REACTIONS = {
    "+": (
        "Wow {other}, that's amazing!",
        "That's so cool, congrats!",
        "Love that for you, {other}.",
        "No way! That's awesome.",
        "Ha, that's brilliant. How did that feel?",
    ),
    "-": (
        "Oh no, {other}, I'm so sorry.",
        "That sounds hard, are you ok?",
        "Ugh, that's rough. How are you holding up?",
        "Oof. Sending you a big hug.",
    ),
    "0": (
        "Interesting! How did that come about?",
        "Huh, I didn't know that about you, {other}.",
        "Oh nice, what made you decide that?",
        "That's a big step. How do you feel about it?",
    ),
}
# the listener answers the news at length, in the second person ({word}: the topic's word)
LONG_REACTIONS = {
    "+": (
        "Wow, {other}, your {word} news is the best thing I've heard all week! I'm so happy for you, honestly.",
        "That {word} story is amazing! You must be so proud of yourself, you always find the most fun things to do.",
        "I love hearing about your {word}. You've been wanting something like that for ages, right?",
        "Congrats on the {word}, {other}! You totally deserve it after the year you've had.",
    ),
    "-": (
        "Oh no, the {word} thing sounds awful, {other}. I hope you're taking care of yourself through all of it.",
        "I'm so sorry about your {word} trouble. Let me know if I can help with anything at all, okay?",
        "Your {word} story made my stomach drop. Are you feeling any better about it now?",
    ),
    "0": (
        "Huh, the {word} thing is a big change for you! What made you decide on it in the end?",
        "I didn't expect that {word} news from you, {other}. How are you feeling about it all?",
        "A {word}, really? You never stop surprising me. I hope it works out the way you want.",
    ),
}
# the listener relates the other's news to themselves, in the first person, without having done it
RELATE = (
    "I keep telling myself I'll look into the whole {word} thing one day, maybe next year when work calms down.",
    "Ha, I've been thinking about a {word} myself lately, but I never seem to find the time or the energy.",
    "My cousin did the {word} thing last year and wouldn't stop talking about it. I'm still not sure it's for me.",
    "Honestly I'm a bit jealous of your {word}, I've wanted to do something like that for years and never have.",
)
RELATE_REPLIES = (
    "You totally should, you'd love it!",
    "Ha, there's no rush, {other}. It'll happen when it happens.",
    "Do it! I'll even come with you the first time.",
)
# what a speaker may add after stating their news (first person, no topic words)
TAILS = (
    "Life has been a bit of a whirlwind lately, to be honest.",
    "I still can't quite believe it happened, it feels like a dream.",
    "I'll tell you the whole story properly when we meet up.",
    "It's been on my mind all week, I keep smiling about it.",
    "Anyway, that's my big news for now, I had to tell someone.",
)
# a second sentence any reply may go on with (no topic words, no names): chat turns are long, news or not
CHATTER = (
    "Work has been nonstop this month, so I'm glad we finally get to talk properly.",
    "I've barely had a quiet evening lately, between everything going on.",
    "Sorry if I'm slow to reply today, my phone keeps dying on me.",
    "It's funny how the weeks just disappear when you're busy.",
    "I was telling my neighbour about you the other day, actually.",
    "Honestly, talking to you always puts me in a better mood.",
)
ANSWERS = {
    "+": ("It felt great, honestly. Still smiling about it.", "Thanks! It was so much fun."),
    "-": ("I'm okay, taking it one day at a time.", "Thanks for asking, {other}. It's getting better."),
    "0": ("Long story, but it just felt right.", "Honestly, I'm still figuring that out myself."),
}
ECHO_ANSWERS = (
    "Haha, long story, I'll tell you properly next time.",
    "I'll show you pictures when we meet up!",
    "Honestly, it's been a lot, but in a good way.",
    "Ha, you sound just like my mom, {other}.",
)
THANKS = ("Thanks, {other}! That means a lot.", "Haha, thank you!", "Thanks, I appreciate it.")
SMALL_TALK = (
    "The weather has been so strange lately.",
    "I've been so busy, but good busy.",
    "Ugh, Mondays, right?",
    "Honestly, this week just flew by.",
    "Did you see the sunset yesterday? Unreal.",
    "I'm so tired today, I could nap right here.",
    "Traffic this morning was a nightmare.",
    "This week has been a lot, {other}.",
)
SMALL_TALK_REPLIES = ("Haha, same here.", "Totally.", "Right? I feel that.", "Ha, tell me about it.", "Same, {other}.")
FOLLOW_UPS = (
    "Any news on the {word} front, {other}?",
    "So how's everything with the {word}?",
    "Wait, remind me how the {word} thing turned out?",
)
FOLLOW_UP_ANSWERS = (
    "Better than expected, thanks for asking!",
    "Pretty good! I'll tell you more soon.",
    "Oh, it's a whole saga, but fine.",
)
SINGLES = ("Anyway, it's so good to catch up.", "Ha, this chat made my day, {other}.", "Okay, I'm smiling now.")
CLOSINGS = ("I have to run, talk soon!", "Okay, gotta go. Bye {other}!", "Let's catch up again soon, okay?")
CLOSING_REPLIES = ("Bye! Take care.", "Talk soon, {other}!", "Take care, you!")

ANSWER_TYPES = ("what", "when", "where", "how_many", "who", "why", "yesno")
MAX_TURNS = 20
_REPLIES = {"echo": ECHO_ANSWERS, "reply": SMALL_TALK_REPLIES, "follow": FOLLOW_UP_ANSWERS, "relate": RELATE_REPLIES}
_OWED = ("react", "answer", *_REPLIES)  # a turn that needs the next turn to respond to it
FIRST_DAY = dt.datetime(2022, 1, 1, 9, 0, tzinfo=dt.timezone.utc)


# --------------------------------------------------------------------------- the topic table


@dataclass(frozen=True)
class Topic:
    key: str  # "group.name"
    answer_type: str
    mood: str  # "+", "-" or "0"
    word: str
    echo: str
    say: tuple[str, ...]
    ask: tuple[str, ...]

    @property
    def group(self) -> str:
        return self.key.split(".", 1)[0]


def _parse(table: str) -> tuple[Topic, ...]:
    """The topic blocks of ``_TABLE`` (format in the comment above it)."""
    topics: list[Topic] = []
    head: list[str] = []
    say: list[str] = []
    ask: list[str] = []

    def close() -> None:
        if head:
            key, answer_type, mood, word, echo = head
            topics.append(Topic(key, answer_type, mood, word, echo, tuple(say), tuple(ask)))

    for line in table.strip().splitlines():
        text = line.strip()
        if text.startswith(">"):
            say.append(text[1:].strip())
        elif text.startswith("?"):
            ask.append(text[1:].strip())
        else:
            close()
            head, say, ask = [part.strip() for part in text.split("|")], [], []
    close()
    return tuple(topics)


TOPICS: tuple[Topic, ...] = _parse(_TABLE)
GROUPS: tuple[str, ...] = tuple(dict.fromkeys(t.group for t in TOPICS))
BY_GROUP: dict[str, tuple[Topic, ...]] = {g: tuple(t for t in TOPICS if t.group == g) for g in GROUPS}


# --------------------------------------------------------------------------- generation


@dataclass
class _Stated:
    """One topic as one speaker states it in a conversation."""

    topic: Topic
    owner: int  # 0 or 1: the speaker
    slots: dict[str, str]
    record_id: str = ""


@dataclass
class _Session:
    """Writes one session's turns, keeping to its target length (speakers alternate from ``first``)."""

    rng: random.Random
    names: Sequence[str]
    first: int
    target: int
    earlier: Sequence[_Stated]  # topics stated in earlier sessions (for follow-up questions)
    turns: list[str] = field(default_factory=list)
    stated: dict[int, _Stated] = field(default_factory=dict)  # turn index -> topic stated there
    followed: list[_Stated] = field(default_factory=list)  # earlier topics asked about in this session
    related: list[_Stated] = field(default_factory=list)  # topics the listener related to themselves

    def speaker(self) -> int:
        return (self.first + len(self.turns)) % 2

    def add(self, template: str, **slots: str) -> None:
        self.turns.append(template.format_map({**slots, "other": self.names[1 - self.speaker()]}))

    def go_on(self) -> None:
        """Now and then, the turn just written goes on with a sentence of :data:`CHATTER`."""
        if self.rng.random() < 0.5:
            self.turns[-1] += " " + self.rng.choice(CHATTER)

    def pick(self, lines: Sequence[str], **slots: str) -> None:
        """One of ``lines``, preferring one this session has not used yet."""
        used = set(self.turns)
        other = self.names[1 - self.speaker()]
        fresh = [line for line in lines if line.format_map({**slots, "other": other}) not in used]
        self.add(self.rng.choice(fresh or list(lines)), **slots)

    def spare(self, pending: int, need: str) -> int:
        """Turns left over once every pending topic (ask, state, react: 3 each) and the owed reply are written."""
        return self.target - 2 - len(self.turns) - 3 * pending - (1 if need in _OWED else 0)

    def write(self, plan: list[_Stated]) -> None:
        rng = self.rng
        self.pick(GREETINGS)
        self.pick(GREETING_REPLIES)
        pending, need, mood = list(plan), "", "0"
        while True:
            spare, s = self.spare(len(pending), need), self.speaker()
            if need == "react":
                need = self.react(mood, question_ok=spare >= 1)
            elif need in _OWED:
                self.pick(ANSWERS[mood] if need == "answer" else _REPLIES[need])
                self.go_on()
                need = ""
            elif need == "thanks":
                if spare >= 1 and rng.random() < 0.5:
                    self.pick(THANKS)
                need = ""
            elif pending and pending[0].owner == s and (need == "prompted" or spare < 2 or rng.random() < 0.5):
                item = pending.pop(0)
                self.stated[len(self.turns)] = item
                tail = " " + rng.choice(TAILS) if rng.random() < 0.5 else ""
                self.add(rng.choice(item.topic.say) + tail, **item.slots)
                need, mood = "react", item.topic.mood
            elif pending and pending[0].owner != s and (spare < 2 or rng.random() < 0.35):
                self.pick(PROMPTS)
                need = "prompted"
            elif not pending and len(self.turns) >= self.target - 2:
                break
            elif spare >= 2:
                need = self.open_pair(s)
            else:
                self.pick(SINGLES)
        self.pick(CLOSINGS)
        self.pick(CLOSING_REPLIES)

    def react(self, mood: str, question_ok: bool) -> str:
        """The listener reacts to the statement just made; returns what the next turn owes."""
        item = self.stated[len(self.turns) - 1]
        long = REACTIONS[mood] if self.rng.random() < 0.3 else LONG_REACTIONS[mood]
        options = [line for line in (item.topic.echo, *long) if question_ok or not line.endswith("?")]
        echo_ok = item.topic.echo in options
        line = item.topic.echo if echo_ok and self.rng.random() < 0.2 else self.rng.choice(options)
        self.add(line, word=item.topic.word)
        if not line.endswith("?"):
            self.go_on()
        if not line.endswith("?"):
            return "thanks"
        return "echo" if line == item.topic.echo else "answer"

    def open_pair(self, s: int) -> str:
        """Small talk, or a follow-up on the listener's earlier news; returns what the next turn owes."""
        theirs = [e for e in self.earlier if e.owner == 1 - s and e not in self.followed]
        if theirs and self.rng.random() < 0.35:
            item = self.rng.choice(theirs)
            self.followed.append(item)
            self.pick(FOLLOW_UPS, word=item.topic.word)
            return "follow"
        news = [e for e in (*self.earlier, *self.stated.values()) if e.owner == 1 - s and e not in self.related]
        if news and self.rng.random() < 0.5:
            item = self.rng.choice(news)
            self.related.append(item)
            self.pick(RELATE, word=item.topic.word)
            return "relate"
        self.pick(SMALL_TALK)
        self.go_on()
        return "reply"


def _slots(rng: random.Random) -> dict[str, str]:
    n, ago = rng.choice(NUMBERS), rng.choice(AGO)
    return {
        "pet": rng.choice(PETS),
        "kid": rng.choice(KIDS),
        "friend": rng.choice(FRIENDS),
        "city": rng.choice(CITIES),
        "ago": ago,
        "Ago": ago[0].upper() + ago[1:],
        "n": n,
        "N": n.capitalize(),
    }


def _session_sizes(rng: random.Random, n_topics: int, n_sessions: int) -> list[int]:
    """Topics per session: 2 to 4 each, ``n_topics`` in all."""
    sizes = [2] * n_sessions
    for _ in range(n_topics - 2 * n_sessions):
        i = rng.choice([i for i, size in enumerate(sizes) if size < 4])
        sizes[i] += 1
    return sizes


def _plan(rng: random.Random, topics: Sequence[Topic], sizes: Sequence[int]) -> list[list[_Stated]]:
    """Split the topics into sessions; within a session both speakers state at least one."""
    plans, at = [], 0
    for size in sizes:
        start = rng.randrange(2)
        owners = [(start + j) % 2 for j in range(size)]
        rng.shuffle(owners)
        plans.append([_Stated(topic, owner, _slots(rng)) for topic, owner in zip(topics[at : at + size], owners)])
        at += size
    return plans


def _stamp(moment: dt.datetime) -> str:
    return moment.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _question(template: str, name: str, slots: dict[str, str], kind: str, gold: list[str], topic: Topic) -> dict:
    """One question dict; ``topic`` (the topic's key) is kept beside the documented keys for analysis."""
    return {
        "question": template.format_map({**slots, "p": name}),
        "label": 1 if kind == "answerable" else 0,
        "kind": kind,
        "gold": gold,
        "answer_type": topic.answer_type,
        "topic": topic.key,
    }


def _questions(rng: random.Random, names: Sequence[str], stated: Sequence[_Stated]) -> list[dict[str, Any]]:
    """One answerable question per stated topic, the same question about the other speaker for about half of
    them (at least one), and 4 to 8 questions on topics from groups the conversation never touches."""
    out: list[dict[str, Any]] = []
    swap = [rng.random() < 0.5 for _ in stated]
    if not any(swap):
        swap[rng.randrange(len(stated))] = True
    for item, swapped in zip(stated, swap):
        template = rng.choice(item.topic.ask)
        out.append(_question(template, names[item.owner], item.slots, "answerable", [item.record_id], item.topic))
        if swapped:
            out.append(_question(template, names[1 - item.owner], item.slots, "swapped", [item.record_id], item.topic))
    used = {item.topic.group for item in stated}
    for group in rng.sample([g for g in GROUPS if g not in used], rng.randint(4, 8)):
        topic = rng.choice(BY_GROUP[group])
        out.append(_question(rng.choice(topic.ask), rng.choice(names), _slots(rng), "absent", [], topic))
    rng.shuffle(out)
    return out


def _conversation(rng: random.Random, index: int) -> dict[str, Any]:
    cid = f"chat-{index:03d}"
    names = rng.sample(NAMES, 2)
    n_sessions = rng.randint(3, 6)
    n_topics = rng.randint(max(6, 2 * n_sessions), min(12, 4 * n_sessions))
    topics = [rng.choice(BY_GROUP[g]) for g in rng.sample(GROUPS, n_topics)]
    day = FIRST_DAY + dt.timedelta(days=rng.randrange(700))
    records: list[dict[str, Any]] = []
    stated: list[_Stated] = []
    for number, plan in enumerate(_plan(rng, topics, _session_sizes(rng, n_topics, n_sessions)), start=1):
        if number > 1:
            day += dt.timedelta(days=rng.randint(3, 28))
        at = day.replace(hour=rng.randint(8, 21), minute=rng.randrange(60), second=rng.randrange(60))
        least = max(8, 4 + 3 * len(plan))  # greetings, 3 turns per topic, goodbyes
        target = rng.randint(least, min(MAX_TURNS, least + 8))
        session = _Session(rng, names, rng.randrange(2), target, list(stated))
        session.write(plan)
        for t, text in enumerate(session.turns, start=1):
            at += dt.timedelta(seconds=rng.randint(20, 150))
            speaker, rid = names[(session.first + t - 1) % 2], f"{cid}/s{number}/t{t}"
            if t - 1 in session.stated:
                session.stated[t - 1].record_id = rid
            stream = f"{cid}/session_{number}"
            records.append(
                {"id": rid, "text": f"{speaker}: {text}", "at": _stamp(at), "stream": stream, "entities": [speaker]}
            )
        stated.extend(session.stated.values())
    return {
        "id": cid,
        "speakers": list(names),
        "records": records,
        "now": _stamp(at + dt.timedelta(days=1)),
        "questions": _questions(rng, names, stated),
    }


def conversations(n: int, seed: int = 11) -> list[dict]:
    """``n`` template conversations between two speakers, with their questions; the same ``(n, seed)`` gives
    the same output.

    Each dict: ``id`` ("chat-000", ...); ``speakers`` [A, B]; ``records``, the memory records in order, one per
    turn: ``{"id": "chat-000/s1/t3", "text": "Maya: ...", "at": "2023-05-08T13:56:03Z", "stream":
    "chat-000/session_1", "entities": [speaker]}``; ``now``, one day after the last turn (RFC 3339, UTC);
    ``questions``: ``{"question", "label": 1|0, "kind": "answerable"|"swapped"|"absent", "gold": [record ids],
    "answer_type": "what"|"when"|"where"|"how_many"|"who"|"why"|"yesno", "topic": the topic's key}``. Gold is
    the statement turn for answerable questions, the turn the question was made from for swapped ones, and
    empty for absent ones.
    """
    rng = random.Random(seed)
    return [_conversation(rng, i) for i in range(n)]
